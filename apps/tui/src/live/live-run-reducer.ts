// The live run view's state, folded from the runner's RunEvent stream. Finished
// turns and notices are append-only items (they go to Ink's <Static> and are never
// redrawn); only the current turn, progress and usage change in place.

/** core's RunEvent (runner/run-event.ts), typed structurally. */
export type LiveRunEvent =
  | { type: 'run-started'; sessionId: string; mode: string; resumed: boolean; roundUnit?: string }
  | { type: 'turn-started'; agent: string; round: number | null; stepKey?: string }
  | { type: 'delta'; agent: string; text: string }
  | {
      type: 'turn-completed';
      message: { role: string; content: string; speaker: string | null; round: number | null };
      replayed?: boolean;
    }
  | { type: 'progress'; label: string; done: number; total: number | null }
  | { type: 'map-progress'; stepId: string; total: number; done: number; running: number; failed: number }
  | { type: 'usage'; totals: { inputTokens: number; outputTokens: number; costUsd: number | null } }
  | { type: 'checkpoint'; seq: number; label: string | null }
  | { type: 'notice'; text: string }
  | { type: 'shell-output'; step: string; text: string }
  | {
      type: 'parallel';
      group: string;
      number: number;
      branches: LiveBranch[];
      finished: boolean;
    };

/** One step of a running parallel group (runner's ParallelBranchState, typed structurally). */
export interface LiveBranch {
  id: string;
  state: 'waiting' | 'running' | 'completed' | 'replayed' | 'skipped' | 'failed' | 'interrupted' | 'not-started';
  detail: string | null;
}

export interface LiveRunResult {
  status: 'completed' | 'interrupted' | 'waiting' | 'failed';
  sessionId: string;
  /** For a waiting run: the question the agent asked the user. */
  question?: string;
  /** For an interrupted run: the exact command that resumes it. */
  resumeCommand?: string;
  /** For an interrupted run: the label of the checkpoint it stopped at ("chunk 3/15", "round 2, agent critic"). */
  savedAt?: string;
  /** For a failed run: what went wrong. */
  message?: string;
  /** The resume was declined before anything ran; the session is unchanged. */
  cancelled?: boolean;
}

export type StaticItem =
  | { id: number; kind: 'started'; sessionId: string; mode: string; resumed: boolean }
  /** `unit`: what `round` counts ("round", "chunk"). */
  | { id: number; kind: 'turn'; speaker: string; round: number | null; unit: string; content: string }
  | { id: number; kind: 'replayed'; count: number }
  | { id: number; kind: 'notice'; text: string }
  | { id: number; kind: 'finished'; result: LiveRunResult };

export interface LiveRunState {
  items: StaticItem[];
  current: { agent: string; round: number | null; unit: string; text: string } | null;
  /** What the run's turns' `round` counts, from its start ("round", "chunk"). */
  roundUnit: string;
  progress: { label: string; done: number; total: number | null } | null;
  /** The running map step's items. */
  mapItems: MapItemsProgress | null;
  usage: { inputTokens: number; outputTokens: number; costUsd: number | null } | null;
  checkpoint: { seq: number; label: string | null } | null;
  /** The parallel group running now: one state line per step. */
  parallel: { number: number; branches: LiveBranch[] } | null;
  /** What the running shell step's command printed lately (its tail), until the next step or attempt starts. */
  shell: { step: string; text: string } | null;
  /** Turns restored from the journal since the last live text: shown live, printed as one line before new text. */
  pendingReplayed: number;
  finished: LiveRunResult | null;
}

export interface MapItemsProgress {
  stepId: string;
  total: number;
  done: number;
  running: number;
  failed: number;
}

export type LiveRunAction = { type: 'event'; event: LiveRunEvent } | { type: 'finished'; result: LiveRunResult };

export const initialLiveRunState: LiveRunState = {
  items: [],
  current: null,
  progress: null,
  mapItems: null,
  usage: null,
  checkpoint: null,
  parallel: null,
  shell: null,
  pendingReplayed: 0,
  roundUnit: 'round',
  finished: null,
};

type NewStaticItem = StaticItem extends infer Item ? (Item extends StaticItem ? Omit<Item, 'id'> : never) : never;

function append(state: LiveRunState, item: NewStaticItem): StaticItem[] {
  return [...state.items, { ...item, id: state.items.length }];
}

/** Announces restored turns (if any) before something live is shown. */
function flushReplayed(state: LiveRunState): LiveRunState {
  if (state.pendingReplayed === 0) return state;
  return { ...state, items: append(state, { kind: 'replayed', count: state.pendingReplayed }), pendingReplayed: 0 };
}

/** How much of a running command's output is kept: enough for the lines shown. */
const SHELL_TAIL_CHARS = 4096;

export function liveRunReducer(state: LiveRunState, action: LiveRunAction): LiveRunState {
  if (action.type === 'finished') {
    const flushed = flushReplayed(state);
    return {
      ...flushed,
      current: null,
      shell: null,
      finished: action.result,
      items: append(flushed, { kind: 'finished', result: action.result }),
    };
  }
  const event = action.event;
  switch (event.type) {
    case 'run-started':
      return {
        ...state,
        roundUnit: event.roundUnit ?? 'round',
        items: append(state, { kind: 'started', sessionId: event.sessionId, mode: event.mode, resumed: event.resumed }),
      };
    // A started turn may still turn out to be restored from the journal (a mode that announces
    // every turn): the restored count is said once the first live text arrives, so restored
    // turns make one line however their starts were announced.
    case 'turn-started':
      return {
        ...state,
        shell: null,
        current: { agent: event.agent, round: event.round, unit: state.roundUnit, text: '' },
      };
    case 'delta': {
      const flushed = flushReplayed(state);
      const current =
        state.current && state.current.agent === event.agent
          ? { ...state.current, text: state.current.text + event.text }
          : { agent: event.agent, round: state.current?.round ?? null, unit: state.roundUnit, text: event.text };
      return { ...flushed, current };
    }
    case 'turn-completed': {
      if (event.replayed) {
        // The start announced for this turn was a replay's: nobody is speaking after all.
        const speaker = event.message.speaker ?? event.message.role;
        const announced = state.current !== null && state.current.agent === speaker && state.current.text === '';
        return { ...state, current: announced ? null : state.current, pendingReplayed: state.pendingReplayed + 1 };
      }
      const flushed = flushReplayed(state);
      const message = event.message;
      const speaker = message.speaker ?? message.role;
      return {
        ...flushed,
        current: null,
        items: append(flushed, {
          kind: 'turn',
          speaker,
          round: message.round,
          unit: state.roundUnit,
          content: message.content,
        }),
      };
    }
    case 'progress':
      // The next step or attempt starts: the last command's output is done with.
      return { ...state, shell: null, progress: { label: event.label, done: event.done, total: event.total } };
    case 'shell-output': {
      const text = state.shell?.step === event.step ? state.shell.text + event.text : event.text;
      return { ...state, shell: { step: event.step, text: text.slice(-SHELL_TAIL_CHARS) } };
    }
    case 'map-progress': {
      const { stepId, total, done, running, failed } = event;
      return { ...state, mapItems: { stepId, total, done, running, failed } };
    }
    case 'usage':
      return { ...state, usage: event.totals };
    case 'checkpoint':
      return { ...state, checkpoint: { seq: event.seq, label: event.label } };
    case 'notice': {
      const flushed = flushReplayed(state);
      return { ...flushed, items: append(flushed, { kind: 'notice', text: event.text }) };
    }
    case 'parallel': {
      if (!event.finished) return { ...state, parallel: { number: event.number, branches: event.branches } };
      // The joined group leaves one line behind: how each of its steps ended.
      const flushed = flushReplayed(state);
      const text = `step ${event.number} parallel: ${event.branches.map((branch) => `${branch.id} ${branch.state}`).join(', ')}`;
      return { ...flushed, parallel: null, items: append(flushed, { kind: 'notice', text }) };
    }
  }
}

const branchMarks: Record<LiveBranch['state'], string> = {
  waiting: '·',
  running: '▸',
  completed: '✓',
  replayed: '↺',
  skipped: '–',
  failed: '✗',
  interrupted: '‖',
  'not-started': '·',
};

/** "▸ lint  running · attempt 2/3": a parallel step's state line. */
export function describeBranch(branch: LiveBranch): string {
  const state = branch.state === 'replayed' ? 'restored from the journal' : branch.state.replace('-', ' ');
  return `${branchMarks[branch.state]} ${branch.id}  ${state}${branch.detail ? ` · ${branch.detail}` : ''}`;
}

/** "round 2 of 5", "chunk 8 of 15", "step 3" */
export function describeProgress(progress: NonNullable<LiveRunState['progress']>): string {
  return progress.total === null
    ? `${progress.label} ${progress.done}`
    : `${progress.label} ${progress.done} of ${progress.total}`;
}

/** "items 12/40 done · 4 running · 1 failed" */
export function describeItems(items: MapItemsProgress): string {
  return `items ${items.done}/${items.total} done · ${items.running} running · ${items.failed} failed`;
}

/** The last `maxLines` screen lines of `text` wrapped at `width` (the streaming area). */
export function tailLines(text: string, width: number, maxLines: number): string[] {
  if (maxLines <= 0) return [];
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    if (paragraph.length === 0) {
      lines.push('');
      continue;
    }
    for (let start = 0; start < paragraph.length; start += width) lines.push(paragraph.slice(start, start + width));
  }
  return lines.slice(-maxLines);
}
