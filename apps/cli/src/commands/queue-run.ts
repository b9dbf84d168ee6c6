// `conclave run <spec.yaml> --queue <name>`: puts the run on a queue of the PostgreSQL store
// instead of running it here (docs/workers.md#queued-workflow-runs). The spec is read and
// checked now, and its text goes with the item: the worker that runs it needs no copy.
import path from 'node:path';
import { type JsonValue, UsageError } from '@resume/core/spec';
import {
  checkWorkflow,
  parsePromptFile,
  parseWorkflowSpec,
  queuedWorkflow,
  readUserFile,
  resolveVariables,
  USER_FILE_LIMITS,
  WORKFLOW_JOB,
} from '@resume/runner';
import type { CliContext } from '../context/cli-context.js';
import { withWorkQueue } from '../context/open-work-queue.js';

export async function enqueueWorkflowCommand(
  context: CliContext,
  input: { file: string; variables: Record<string, string>; title: string | undefined; queue: string },
): Promise<number> {
  const item = queuedSpec(context, input);
  return withWorkQueue(context, 'conclave run --queue', async (queue) => {
    const sessionId = await queue.enqueue(WORKFLOW_JOB, item, { queue: input.queue });
    const terminal = context.terminal;
    if (context.options.json) terminal.data(JSON.stringify({ sessionId, queue: input.queue, status: 'queued' }));
    else terminal.out(`Queued: ${sessionId}`);
    terminal.note(`On queue "${input.queue}": a worker runs it (conclave worker --queue ${input.queue}).`);
    terminal.note(`Watch it with: conclave sessions show ${sessionId}   or   conclave queue list`);
    return 0;
  });
}

/** The queue item of a run of `file`, read and checked now: a spec that cannot run is refused here, not by a worker later. */
export function queuedSpec(
  context: CliContext,
  input: { file: string; variables: Record<string, string>; title: string | undefined },
): JsonValue {
  const filePath = path.resolve(context.environment.cwd, input.file);
  const prompt = input.file.endsWith('.prompt.md');
  const text = readUserFile(filePath, {
    what: prompt ? 'prompt file' : 'workflow spec',
    maxBytes: USER_FILE_LIMITS.text,
  });
  if (prompt) parsePromptFile(text, input.file);
  else {
    const spec = parseWorkflowSpec(text, input.file);
    resolveVariables(spec, input.file, input.variables);
    checkWorkflow(spec, input.file);
  }
  return queuedWorkflow({
    file: input.file,
    text,
    variables: input.variables,
    ...(input.title === undefined ? {} : { title: input.title }),
  });
}

/** The flags a queued run cannot take: they are about a run in this process. */
export function refuseLocalRunFlags(options: Record<string, unknown>): void {
  const local = (
    [
      ['resume', '--resume'],
      ['worktree', '--worktree'],
      ['script', '--script'],
      ['maxParallel', '--max-parallel'],
      ['stepTimeout', '--step-timeout'],
    ] as const
  ).filter(([key]) => options[key] !== undefined && options[key] !== false);
  if (local.length > 0) {
    throw new UsageError(
      `--queue puts the run on a queue for a worker; ${local.map(([, flag]) => flag).join(', ')} cannot go with it.`,
      {
        hint: 'The worker runs the spec as written, in its own --workspace: conclave run spec.yaml --queue <name> --var key=value',
      },
    );
  }
}
