// Queued workflow runs (docs/workers.md#queued-workflow-runs): the built-in job `conclave.workflow`
// runs the workflow spec recorded in its queue item, with its variables, in the worker's
// workspace. The item carries the spec's text, so a worker on another machine needs no copy of
// the file; the run journals that text as any run does. An item handed out again (its worker
// died or was stopped) resumes its session from the journal instead of starting again.
import path from 'node:path';
import type { Engine } from '@resume/core';
import { type JsonValue, UsageError } from '@resume/core/spec';
import { z } from 'zod';
import { readUserFile } from '../files/user-file.js';
import { createRunner } from '../runner/runner.js';
import { inputFile } from '../runner/runner-scope.js';
import type { RunnerOptions, RunResult } from '../runner/runner-types.js';
import { MAP_ITEM_JOB, queuedMapItem, runMapItem, runUntilItemsPending } from './map-item-job.js';

/** The name queued workflow runs are put on a queue under. */
export const WORKFLOW_JOB = 'conclave.workflow';

const queuedWorkflowSchema = z.object({
  /** The spec's file name (its extension says how it runs: `.prompt.md` or a workflow spec). */
  file: z.string().min(1),
  /** The spec's text when it was queued. */
  text: z.string(),
  variables: z.record(z.string(), z.string()).default({}),
  title: z.string().optional(),
});
export type QueuedWorkflow = z.infer<typeof queuedWorkflowSchema>;

/** The queue item's input for a run of `text` (read from `file`) with `variables`. */
export function queuedWorkflow(input: {
  file: string;
  text: string;
  variables?: Record<string, string>;
  title?: string;
}): JsonValue {
  return {
    file: path.basename(input.file),
    text: input.text,
    variables: input.variables ?? {},
    ...(input.title === undefined ? {} : { title: input.title }),
  };
}

export interface WorkflowJobRunner {
  /** Runs a queue item: `conclave.workflow` and `conclave.map-item` here, any other name with `engine.start`. */
  start(name: string, input: JsonValue, options: { id: string; queue?: string }): Promise<unknown>;
  /** Interrupts every workflow run and map item under way (each is journaled `interrupted`, resumable). */
  interrupt(reason: string): Promise<void>;
}

/** The work queue a worker takes its items from: queued runs put their map items on it. */
export interface WorkflowJobQueue {
  enqueue(name: string, input: JsonValue, options: { queue: string; id: string }): Promise<unknown>;
}

/**
 * What a worker runs its items with: workflow items with a runner of their own each (the options
 * every run gets: models, workspace, environment), other items as the engine's registered jobs.
 * A workflow run that ends waiting or interrupted resolves with its result (`status` says so);
 * one that fails rejects with its error, so the queue tries it again.
 *
 * With `queue`, a run's map items go on the queue its run was taken from, as child sessions any
 * worker runs (docs/workers.md#queued-map-items): the run stops while they run, and the worker
 * that ends an item puts the run on the queue again (a wake-up: the item's input is null).
 */
export function registerWorkflowJob(
  engine: Engine,
  options: Omit<RunnerOptions, 'engine' | 'readTextFile'>,
  queue?: WorkflowJobQueue,
): WorkflowJobRunner {
  const running = new Set<{ interrupt(reason: string): Promise<void> }>();
  const track = (runner: { interrupt(reason: string): Promise<void> }) => {
    running.add(runner);
    return () => running.delete(runner);
  };
  const wakeOn = (queueName: string) => (runId: string) =>
    (queue as WorkflowJobQueue).enqueue(WORKFLOW_JOB, null, { queue: queueName, id: runId });
  const optionsOn = (queueName: string | undefined): Omit<RunnerOptions, 'engine' | 'readTextFile'> =>
    queue === undefined || queueName === undefined
      ? options
      : {
          ...options,
          mapItems: {
            async enqueue(item) {
              await queue.enqueue(MAP_ITEM_JOB, queuedMapItem(item), { queue: queueName, id: item.id });
            },
          },
        };
  return {
    async start(name, input, { id, queue: queueName }) {
      if (name === MAP_ITEM_JOB && queue !== undefined && queueName !== undefined) {
        return runMapItem(engine, options, input, wakeOn(queueName), track);
      }
      if (name !== WORKFLOW_JOB) return engine.start(name, input, { id });
      const runOptions = optionsOn(queueName);
      if (input === null) {
        // A wake-up from an ended map item: the run resumes from its journal, unless it ended.
        const summary = await engine.store.getSummary(id);
        if (!summary) throw new UsageError(`The queue item of session ${id} wakes a run that is not in the store.`);
        if (summary.status === 'completed' || summary.status === 'failed') return summary;
        return runUntilItemsPending(engine, id, () =>
          withRunner(
            track,
            createRunner({ ...runOptions, engine, readTextFile: async (file) => readUserFile(file, inputFile()) }),
            (runner) => runner.resume(id, { workspaceDir: options.workspaceDir }),
          ),
        ).then(failOn(id));
      }
      const parsed = queuedWorkflowSchema.safeParse(input);
      if (!parsed.success) {
        throw new UsageError(
          `The queue item of session ${id} is not a queued workflow run: ${parsed.error.issues[0]?.message ?? 'not valid'}.`,
        );
      }
      const item = parsed.data;
      const specPath = path.resolve(options.workspaceDir, item.file);
      const runner = () =>
        createRunner({
          ...runOptions,
          engine,
          // The spec is the one recorded in the item, whatever this machine has under that name.
          readTextFile: async (filePath) => {
            return filePath === specPath ? item.text : readUserFile(filePath, inputFile());
          },
        });
      const result = await runUntilItemsPending(engine, id, async () =>
        withRunner(track, runner(), async (each) =>
          (await engine.store.getHeader(id))
            ? each.resume(id, { workspaceDir: options.workspaceDir })
            : each.runWorkflow(item.file, {
                id,
                variables: item.variables,
                ...(item.title === undefined ? {} : { title: item.title }),
              }),
        ),
      );
      return failOn(id)(result);
    },
    async interrupt(reason) {
      await Promise.all([...running].map((runner) => runner.interrupt(reason)));
    },
  };
}

async function withRunner<R extends { interrupt(reason: string): Promise<void> }>(
  track: (runner: R) => () => void,
  runner: R,
  run: (runner: R) => Promise<RunResult>,
): Promise<RunResult> {
  const untrack = track(runner);
  try {
    return await run(runner);
  } finally {
    untrack();
  }
}

/** A failed run rejects with its error, so the queue tries it again. */
function failOn(id: string): (result: RunResult) => RunResult {
  return (result) => {
    if (result.status === 'failed') throw result.error ?? new Error(`The run of session ${id} failed.`);
    return result;
  };
}
