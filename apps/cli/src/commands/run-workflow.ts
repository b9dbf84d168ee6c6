// `conclave run <spec.yaml|task.prompt.md> [--var k=v]...` and `conclave run --resume <id>`.

import { lazySchema } from '@resume/core/lazy-schema';
import { UsageError } from '@resume/core/spec';
import type { ProviderName } from '@resume/runner';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { costLimitsOf } from '../runs/cost-limits.js';
import { recordOf, selectionFrom } from '../runs/models.js';
import { parseRunFlags } from '../runs/run-flags.js';
import { runWithHarness } from '../runs/run-harness.js';
import { pickWorkflowSession, runSessionFlow } from '../runs/session-flows.js';

/** Built on the first use. */
export const workflowOptionsSchema = lazySchema(() =>
  z.object({
    var: z.array(z.string()).default([]),
    saveSession: z.boolean().default(true),
    resume: z.union([z.string(), z.boolean()]).optional(),
    script: z.string().optional(),
    title: z.string().optional(),
    maxCost: z.string().optional(),
    maxLineageCost: z.string().optional(),
    worktree: z.boolean().optional(),
    queue: z.string().optional(),
  }),
);
type WorkflowOptions = z.infer<typeof workflowOptionsSchema>;

export async function runWorkflowCommand(
  context: CliContext,
  input: { file: string | undefined; options: Record<string, unknown> },
): Promise<number> {
  const options: WorkflowOptions = workflowOptionsSchema.parse(input.options);
  // Checked before anything else: a bad value is refused before a session exists.
  const { maxParallel, stepTimeout } = parseRunFlags(input.options);
  if (options.resume !== undefined) {
    if (input.file)
      throw new UsageError('Give either a file to run or --resume <id>, not both.', {
        hint: 'conclave run --resume <id>   resumes the run as it was recorded (its spec snapshot included).',
      });
    if (options.worktree)
      throw new UsageError('--worktree starts a new run in a worktree; a resume runs where the session ran.', {
        hint: 'conclave run --resume <id>   goes on in the worktree the run started in, if it had one.',
      });
    if (options.var.length > 0)
      throw new UsageError(
        '--var cannot change the variables of a run being resumed; they were recorded when it started.',
        {
          hint: `See them with: conclave sessions show ${options.resume === true ? '<id>' : options.resume}. To run with other values, start a new run: conclave run <spec.yaml> --var ...`,
        },
      );
    const picked =
      options.resume === true ? await pickWorkflowSession(context) : { sessionId: options.resume, answered: false };
    if (picked === null) return 0;
    // A question answered in the picker is the go-ahead: resumed without the resume prompt.
    const resumeOptions = { ...input.options, resume: picked.sessionId, ...(picked.answered ? { yes: true } : {}) };
    return runSessionFlow(context, { kind: 'resume', task: '', options: resumeOptions });
  }
  if (!input.file)
    throw new UsageError('conclave run needs a workflow spec (.yaml) or a prompt file (.prompt.md).', {
      hint: 'conclave run workflow.yaml --var topic="AI agents"   or   conclave run --resume <id>',
    });
  const variables = parseVariables(options.var);
  if (options.queue !== undefined) {
    const { enqueueWorkflowCommand, refuseLocalRunFlags } = await import('./queue-run.js');
    refuseLocalRunFlags(input.options);
    return enqueueWorkflowCommand(context, { file: input.file, variables, title: options.title, queue: options.queue });
  }
  const selection = selectionFrom({
    flagProvider: context.options.provider as ProviderName | undefined,
    flagModel: context.options.model,
    flagScript: options.script,
    recorded: null,
    config: context.config().config,
    env: context.environment.env,
    cwd: context.environment.cwd,
  });
  const defaults = context.config().config.resume;
  const flags = input.options as {
    yes?: boolean;
    onConflict?: 'keep' | 'restore' | 'cancel';
    onUncertain?: 'rerun' | 'skip' | 'abort';
  };
  const file = input.file;
  const costs = costLimitsOf(options, context.config().config, null);
  return runWithHarness(
    context,
    {
      limits: costs.limits,
      parallel: maxParallel,
      stepTimeoutMs: stepTimeout,
      selection,
      providerForced: context.options.provider !== undefined,
      agentProviders: [],
      decisions: {
        yes: flags.yes ?? false,
        onConflict: flags.onConflict ?? defaults.onConflict,
        onUncertain: flags.onUncertain ?? defaults.onUncertain,
      },
      discardOnSuccess: !options.saveSession,
    },
    (runner) =>
      runner.runWorkflow(file, {
        variables,
        record: { ...recordOf(selection), ...costs.record },
        ...(options.title ? { title: options.title } : {}),
        ...(options.worktree ? { worktree: true } : {}),
      }),
  );
}

export function parseVariables(assignments: string[]): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const assignment of assignments) {
    const separator = assignment.indexOf('=');
    if (separator <= 0)
      throw new UsageError(`--var "${assignment}" is not key=value.`, { hint: 'Example: --var topic="AI agents"' });
    variables[assignment.slice(0, separator).trim()] = assignment.slice(separator + 1);
  }
  return variables;
}
