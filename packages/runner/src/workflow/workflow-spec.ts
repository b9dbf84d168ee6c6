// The workflow spec format (DESIGN 7, binding keys): parsing, zod validation with errors
// that name the file, the path in the document and the fix, and the checks that must
// pass before anything runs (agent names, template references).
import { ConfigError } from '@resume/core/spec';
import { z } from 'zod';
import { parseDuration } from './duration.js';
import { formatIssuePath } from './issue-path.js';
import { describeReference, type TemplateLocation, type TemplateReference, templateReferences } from './template.js';
import { readYamlData } from './yaml-error.js';

const variableValueSchema = z.union([z.string(), z.number(), z.boolean()]).transform((value) => String(value));
const agentNameSchema = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'agent names are letters, digits, - and _');

export const workflowAgentSchema = z.strictObject({
  prompt: z.string().min(1, 'an agent needs a prompt'),
  model: z.string().min(1).optional(),
  provider: z.string().min(1).optional(),
});

const durationSchema = z.union([z.string(), z.number()]).transform((value, context) => {
  const ms = parseDuration(value);
  if (ms === null) {
    context.addIssue({ code: 'custom', message: `"${value}" is not a duration (use 500ms, 1s, 2m)` });
    return z.NEVER;
  }
  return ms;
});

export const retrySchema = z.strictObject({
  attempts: z.number().int().min(1, 'attempts counts the first try, so it is at least 1').max(100),
  backoff: durationSchema.optional(),
});

const stepIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'a step id is letters, digits, ., - and _ (starting with a letter or digit)');

export const agentStepSchema = z.strictObject({
  id: stepIdSchema.optional(),
  name: z.string().min(1).optional(),
  agent: agentNameSchema,
  input: z.string().default('{{ last_response }}'),
});

export const onFailureSchema = z.strictObject({ agent: agentNameSchema, input: z.string().min(1) });

export const shellStepSchema = z.strictObject({
  id: stepIdSchema.optional(),
  name: z.string().min(1).optional(),
  shell: z.string().min(1, 'a shell step needs a command'),
  retry: retrySchema.optional(),
  on_failure: onFailureSchema.optional(),
});

const stepSchema = z.unknown().transform((value, context) => {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  const hasAgent = isObject && 'agent' in value;
  const hasShell = isObject && 'shell' in value;
  if (hasAgent === hasShell) {
    context.addIssue({
      code: 'custom',
      message: hasAgent
        ? 'a step is either an agent step or a shell step, not both'
        : 'a step needs `agent:` or `shell:`',
    });
    return z.NEVER;
  }
  const parsed = (hasAgent ? agentStepSchema : shellStepSchema).safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      context.addIssue({
        code: 'custom',
        message: issue.message,
        path: issue.path.map((segment) => segment as string | number),
      });
    }
    return z.NEVER;
  }
  return parsed.data;
});

export const workflowSpecSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  variables: z.record(z.string(), variableValueSchema).default({}),
  // A workflow of shell steps only needs no agent; a step naming an undeclared one is refused.
  agents: z.record(agentNameSchema, workflowAgentSchema).default({}),
  steps: z.array(stepSchema).min(1, 'a workflow needs at least one step'),
  outputs: z
    .strictObject({
      artifacts: z
        .array(
          z.strictObject({
            path: z
              .string()
              .min(1)
              .refine(
                (path) => !path.startsWith('/') && !path.split(/[\\/]/).includes('..'),
                'artifact paths stay inside the workspace (relative, no ..)',
              ),
            from: z.string(),
          }),
        )
        .default([]),
    })
    .default({ artifacts: [] }),
});

export type WorkflowSpec = z.infer<typeof workflowSpecSchema>;
export type WorkflowStep = WorkflowSpec['steps'][number];
export type WorkflowAgentStep = z.infer<typeof agentStepSchema>;
export type WorkflowShellStep = z.infer<typeof shellStepSchema>;
export type WorkflowAgent = z.infer<typeof workflowAgentSchema>;

export function isShellStep(step: WorkflowStep): step is WorkflowShellStep {
  return 'shell' in step;
}

const fixes: Array<[RegExp, string]> = [
  [/^steps\[\d+\]\.retry\.attempts$/, 'Give the total number of tries, e.g. retry: { attempts: 3, backoff: 1s }.'],
  [/^steps\[\d+\]\.retry\.backoff$/, 'Write the delay between attempts as 500ms, 1s or 2m.'],
  [/^steps\[\d+\]$/, 'Each step is `- agent: <name>` with `input:`, or `- shell: "<command>"`.'],
  [/^agents/, 'Declare agents as `name: { prompt: "...", model: optional, provider: optional }`.'],
  [/^outputs/, 'Write outputs as `outputs: { artifacts: [{ path: report.md, from: "{{ last_response }}" }] }`.'],
];

function fixFor(key: string): string {
  return fixes.find(([pattern]) => pattern.test(key))?.[1] ?? 'See docs/workflow-spec.md for the format.';
}

export { hashText } from './spec-hash.js';

/**
 * The last spec parsed: a resume parses the recorded spec for its plan (what is left to run)
 * and again to run it. The same text is parsed once; each caller gets its own copy.
 */
let lastParsed: { text: string; file: string | null; spec: WorkflowSpec } | null = null;

/** Parses and validates a workflow spec's text; `file` names it in errors. */
export function parseWorkflowSpec(text: string, file: string | null): WorkflowSpec {
  if (lastParsed && lastParsed.text === text && lastParsed.file === file) return structuredClone(lastParsed.spec);
  const spec = parseWorkflowSpecText(text, file);
  lastParsed = { text, file, spec: structuredClone(spec) };
  return spec;
}

function parseWorkflowSpecText(text: string, file: string | null): WorkflowSpec {
  const raw = readYamlData(text, {
    file,
    key: null,
    syntaxFix: 'Fix the YAML syntax at the line shown.',
    aliasFix: 'Fix the YAML anchors and aliases (&name, *name).',
  });
  const result = workflowSpecSchema.safeParse(raw);
  if (!result.success) {
    const [first, ...rest] = result.error.issues;
    const key = formatIssuePath(first?.path ?? []);
    const more =
      rest.length > 0
        ? ` (and ${rest.length} more: ${rest.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`).join('; ')})`
        : '';
    throw new ConfigError({ file, key, problem: `${first?.message ?? 'invalid'}${more}`, fix: fixFor(key) });
  }
  checkWorkflow(result.data, file);
  return result.data;
}

function checkReferences(
  references: TemplateReference[],
  location: TemplateLocation,
  allowed: {
    variables: Set<string> | null;
    stepsBefore: number;
    error: boolean;
    lastResponse: boolean;
    /** Which steps are shell steps (only those have an exit code), by index. */
    shellSteps?: readonly boolean[];
  },
): void {
  for (const reference of references) {
    const fail = (problem: string, fix: string): never => {
      throw new ConfigError({ file: location.file, key: location.key, problem, fix });
    };
    if (reference.kind === 'variable' && allowed.variables && !allowed.variables.has(reference.name)) {
      fail(
        `unknown variable "{{ ${reference.name} }}"`,
        `Declare it under variables: (or pass --var ${reference.name}=...).`,
      );
    }
    if (reference.kind === 'step' && reference.index >= allowed.stepsBefore) {
      fail(
        `{{ ${describeReference(reference)} }} refers to a step that has not run yet`,
        `Templates index steps from 0 (steps[0] is step 1); this one may refer to steps[0] to steps[${Math.max(0, allowed.stepsBefore - 1)}].`,
      );
    }
    if (
      reference.kind === 'step' &&
      reference.field === 'exit_code' &&
      allowed.shellSteps?.[reference.index] === false
    ) {
      fail(
        `{{ ${describeReference(reference)} }} refers to an agent step, which has no exit code`,
        `Use {{ steps[${reference.index}].response }} for an agent step's answer.`,
      );
    }
    if (reference.kind === 'error' && !allowed.error)
      fail('{{ error }} is only available in on_failure inputs', 'Use it inside on_failure.input.');
    if (reference.kind === 'last-response' && !allowed.lastResponse) {
      fail('{{ last_response }} is not available here', 'Agent prompts may use variables only.');
    }
  }
}

/**
 * The checks that need the whole document: agent names used by steps exist, templates refer
 * to declared variables and earlier steps. `variables` adds names given on the command line.
 */
export function checkWorkflow(spec: WorkflowSpec, file: string | null, extraVariables: Iterable<string> = []): void {
  const agentNames = Object.keys(spec.agents);
  const variables = new Set([...Object.keys(spec.variables), ...extraVariables]);
  const shellSteps = spec.steps.map((step) => isShellStep(step));
  const unknownAgent = (name: string, key: string): never => {
    throw new ConfigError({
      file,
      key,
      problem: `unknown agent "${name}"`,
      fix:
        agentNames.length === 0
          ? 'Declare it under agents: (e.g. agents: { name: { prompt: "..." } }).'
          : `Declare it under agents:, or use one of: ${agentNames.join(', ')}.`,
    });
  };
  // A template may refer to what exists where it stands: variables, earlier steps, and in
  // on_failure inputs the error.
  const check = (
    text: string,
    key: string,
    allowed: { stepsBefore: number; error: boolean; lastResponse: boolean },
  ) => {
    const location = { file, key };
    checkReferences(templateReferences(text, location), location, { variables, shellSteps, ...allowed });
  };
  for (const [name, agent] of Object.entries(spec.agents)) {
    check(agent.prompt, `agents.${name}.prompt`, { stepsBefore: 0, error: false, lastResponse: false });
  }
  const ids = new Map<string, number>();
  spec.steps.forEach((step, index) => {
    if (step.id !== undefined) {
      const first = ids.get(step.id);
      if (first !== undefined) {
        throw new ConfigError({
          file,
          key: `steps[${index}].id`,
          problem: `step id "${step.id}" is already used by steps[${first}]`,
          fix: 'Give each step its own id: the id is how a resume finds what the step already did.',
        });
      }
      ids.set(step.id, index);
    }
    if (isShellStep(step)) {
      check(step.shell, `steps[${index}].shell`, { stepsBefore: index, error: false, lastResponse: true });
      if (step.on_failure) {
        if (!spec.agents[step.on_failure.agent])
          unknownAgent(step.on_failure.agent, `steps[${index}].on_failure.agent`);
        check(step.on_failure.input, `steps[${index}].on_failure.input`, {
          stepsBefore: index,
          error: true,
          lastResponse: true,
        });
      }
      return;
    }
    if (!spec.agents[step.agent]) unknownAgent(step.agent, `steps[${index}].agent`);
    check(step.input, `steps[${index}].input`, { stepsBefore: index, error: false, lastResponse: true });
  });
  spec.outputs.artifacts.forEach((artifact, index) => {
    check(artifact.from, `outputs.artifacts[${index}].from`, {
      stepsBefore: spec.steps.length,
      error: false,
      lastResponse: true,
    });
  });
}

/** Spec defaults overridden by `--var k=v`; an override of an undeclared variable is an error. */
export function resolveVariables(
  spec: WorkflowSpec,
  file: string | null,
  overrides: Record<string, string>,
): Record<string, string> {
  for (const name of Object.keys(overrides)) {
    if (!(name in spec.variables)) {
      throw new ConfigError({
        file,
        key: 'variables',
        problem: `--var ${name} sets a variable the workflow does not declare`,
        fix: `Declare it under variables: or use one of: ${Object.keys(spec.variables).join(', ') || '(none declared)'}.`,
      });
    }
  }
  return { ...spec.variables, ...overrides };
}
