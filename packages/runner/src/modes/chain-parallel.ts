// A workflow's `parallel:` group: its steps run concurrently (at most `max_concurrency` at a
// time), each a durable step of its own journaled in its branch, and join before the next
// step. What a branch says is written at the join in the group's order, so the transcript does
// not depend on which branch finished first; the join is the group's one checkpoint (where
// on-demand checkpoint requests are honoured too). A branch that fails after its retries does
// not stop the others: they run to their end, then the group fails naming it. An interrupt,
// a cost limit or an undecided uncertain step stops the group from starting more branches;
// the running ones end (an interrupt aborts them) before the error is passed on.

import type { UncertainDecision } from '@resume/core';
import { InterruptedError, type MessageInput, StepFailedError, type UncertainStepInfo } from '@resume/core/spec';
import type { BranchState, ParallelBranchState } from '../runner/run-event.js';
import type { StepResult } from '../workflow/template.js';
import { checkpoint, ensureStepMessage, type ModeContext } from './mode-context.js';
import { ParallelGroupFailedError } from './parallel-group-failed-error.js';
import { branchName } from './parallel-group-state.js';

/** A branch as its steps see it: the engine branch they are journaled in, and what they said so far. */
export interface BranchRun {
  name: string;
  /** Messages kept until the join (each with the step key that tags it). */
  messages: Array<{ stepKey: string; message: MessageInput }>;
}

export interface GroupMember {
  id: string;
  kind: 'agent' | 'shell';
  /** The journal keys whose completion means the member already ran (it replays). */
  keys: string[];
  run(branch: BranchRun, context: ModeContext): Promise<StepResult>;
}

export interface ParallelGroup {
  id: string;
  /** The group's step number (from 1). */
  number: number;
  /** How checkpoint labels name the group (`step checks`; `step 2 parallel` in older sessions). */
  label: string;
  members: GroupMember[];
  maxConcurrency: number;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

/** The error a failed branch ends with: its last attempt's, not the step wrapper's. */
function failureMessage(error: unknown): string {
  const cause = StepFailedError.isInstance(error) ? (error as { cause?: unknown }).cause : undefined;
  return firstLine(cause ?? error);
}

/** One decision at a time: two uncertain branches do not ask the user at once. */
export function oneDecisionAtATime(
  decide: ModeContext['onUncertain'],
): ((step: UncertainStepInfo) => Promise<UncertainDecision>) | undefined {
  if (!decide) return undefined;
  let queue: Promise<unknown> = Promise.resolve();
  return (step) => {
    const next = queue.then(() => decide(step));
    queue = next.catch(() => undefined);
    return next;
  };
}

/**
 * Calls `work` for positions 0..count-1 in order, at most `concurrency` at a time; resolves when
 * every call has. A call that should not start any more (the run is stopping) returns at once.
 */
export async function runBounded(
  count: number,
  concurrency: number,
  work: (at: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const at = next;
      next += 1;
      await work(at);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
}

/** Runs the group's members concurrently and joins them; returns their results in spec order. */
export async function runParallelGroup(context: ModeContext, group: ParallelGroup): Promise<StepResult[]> {
  const { session } = context;
  const { members } = group;
  const states: ParallelBranchState[] = members.map((member) => ({ id: member.id, state: 'waiting', detail: null }));
  const announce = (finished: boolean) =>
    context.emit({
      type: 'parallel',
      group: group.id,
      number: group.number,
      branches: states.map((state) => ({ ...state })),
      finished,
    });
  const set = (at: number, state: BranchState, detail: string | null = null) => {
    const current = states[at];
    if (!current || (current.state === state && current.detail === detail)) return;
    current.state = state;
    current.detail = detail;
    announce(false);
  };
  const onUncertain = oneDecisionAtATime(context.onUncertain);
  const branches: BranchRun[] = members.map((member) => ({ name: branchName(group.id, member.id), messages: [] }));
  const branchContext = (at: number): ModeContext => {
    const { onUncertain: _decide, requests: _requests, ...rest } = context;
    return {
      ...rest,
      ...(onUncertain ? { onUncertain } : {}),
      // Requested checkpoints wait for the join: mid-group is no place to resume from.
      requests: null,
      emit: (event) => {
        // Concurrent branches do not stream into one live turn: each shows a state line instead.
        if (event.type === 'turn-started') set(at, 'running', `${event.agent} is speaking`);
        else if (event.type === 'progress' && event.label === 'attempt' && event.total !== null && event.total > 1)
          set(at, 'running', `attempt ${event.done}/${event.total}`);
        else if (event.type !== 'delta' && event.type !== 'progress' && event.type !== 'turn-completed')
          context.emit(event);
      },
    };
  };
  const completedBefore = members.map((member) =>
    member.keys.every((key) =>
      session.state.steps.some(
        (step) => step.key === key && (step.status === 'completed' || step.status === 'skipped'),
      ),
    ),
  );

  const results: Array<StepResult | undefined> = [];
  const failed: Array<{ at: number; error: unknown }> = [];
  let stopped: unknown = null;
  const runMember = async (at: number) => {
    const member = members[at] as GroupMember;
    if (stopped !== null || session.signal.aborted) {
      set(at, 'not-started');
      return;
    }
    // A member that finished before replays at once: no "running" line for it.
    if (!completedBefore[at]) set(at, 'running');
    try {
      const result = await member.run(branches[at] as BranchRun, branchContext(at));
      results[at] = result;
      set(at, result.skipped ? 'skipped' : completedBefore[at] ? 'replayed' : 'completed');
    } catch (error) {
      if (session.signal.aborted) set(at, 'interrupted');
      else set(at, 'failed', failureMessage(error));
      // A step that failed after its retries is this branch's outcome; anything else (an
      // interrupt, a cost limit, an undecided uncertain step) stops the group.
      if (StepFailedError.isInstance(error) && !session.signal.aborted) failed.push({ at, error });
      else stopped ??= error;
    }
  };
  announce(false);
  await runBounded(members.length, group.maxConcurrency, runMember);
  // Whatever the outcome, every finished step is durable before the group reports it (a
  // store that fails now must not hide why the group stopped).
  if (stopped === null && failed.length === 0) await session.flush();
  else await session.flush().catch(() => undefined);
  // Failures are reported in the group's order, whichever failed first.
  failed.sort((left, right) => left.at - right.at);
  announce(true);
  if (stopped !== null) throw stopped;
  if (session.signal.aborted) throw new InterruptedError(session.id);
  if (failed.length > 0) {
    throw new ParallelGroupFailedError(
      {
        group: group.id,
        number: group.number,
        failed: failed.map(({ at, error }) => ({ id: members[at]?.id ?? String(at), message: failureMessage(error) })),
        completed: members.filter((_member, at) => results[at] !== undefined).map((member) => member.id),
      },
      { cause: failed[0]?.error },
    );
  }
  // The join: each branch's messages in the group's order, then the group's checkpoint.
  for (const branch of branches) {
    for (const { stepKey, message } of branch.messages) ensureStepMessage(context, stepKey, message);
  }
  await checkpoint(context, `${group.label}, joined`);
  return results.map((result) => result ?? { response: null });
}
