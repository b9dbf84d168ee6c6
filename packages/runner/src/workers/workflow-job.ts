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
  /** Runs a queue item: `conclave.workflow` here, any other name with `engine.start`. */
  start(name: string, input: JsonValue, options: { id: string }): Promise<unknown>;
  /** Interrupts every workflow run under way (each is journaled `interrupted`, resumable). */
  interrupt(reason: string): Promise<void>;
}

/**
 * What a worker runs its items with: workflow items with a runner of their own each (the options
 * every run gets: models, workspace, environment), other items as the engine's registered jobs.
 * A workflow run that ends waiting or interrupted resolves with its result (`status` says so);
 * one that fails rejects with its error, so the queue tries it again.
 */
export function registerWorkflowJob(
  engine: Engine,
  options: Omit<RunnerOptions, 'engine' | 'readTextFile'>,
): WorkflowJobRunner {
  const running = new Set<{ interrupt(reason: string): Promise<void> }>();
  return {
    async start(name, input, { id }) {
      if (name !== WORKFLOW_JOB) return engine.start(name, input, { id });
      const parsed = queuedWorkflowSchema.safeParse(input);
      if (!parsed.success) {
        throw new UsageError(
          `The queue item of session ${id} is not a queued workflow run: ${parsed.error.issues[0]?.message ?? 'not valid'}.`,
        );
      }
      const item = parsed.data;
      const specPath = path.resolve(options.workspaceDir, item.file);
      const runner = createRunner({
        ...options,
        engine,
        // The spec is the one recorded in the item, whatever this machine has under that name.
        readTextFile: async (filePath) => {
          return filePath === specPath ? item.text : readUserFile(filePath, inputFile());
        },
      });
      running.add(runner);
      try {
        const result: RunResult = (await engine.store.getHeader(id))
          ? await runner.resume(id, { workspaceDir: options.workspaceDir })
          : await runner.runWorkflow(item.file, {
              id,
              variables: item.variables,
              ...(item.title === undefined ? {} : { title: item.title }),
            });
        if (result.status === 'failed') throw result.error ?? new Error(`The run of session ${id} failed.`);
        return result;
      } finally {
        running.delete(runner);
      }
    },
    async interrupt(reason) {
      await Promise.all([...running].map((runner) => runner.interrupt(reason)));
    },
  };
}
