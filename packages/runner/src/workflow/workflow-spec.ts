// The workflow spec format (DESIGN 7, binding keys): parsing, zod validation with errors
// that name the file, the path in the document and the fix, and the checks that must
// pass before anything runs (agent names, template references).
import { ConfigError, type JsonValue, jsonValueSchema } from '@resume/core/spec';
import { z } from 'zod';
import { parseDuration } from './duration.js';
import { formatIssuePath } from './issue-path.js';
import { MAX_MAP_PARALLEL } from './map-limits.js';
import { workflowStepIds } from './step-ids.js';
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

/** The issues of a nested parse, added where the nested value stands. */
function addIssues(context: z.RefinementCtx, issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): void {
  for (const issue of issues) {
    context.addIssue({
      code: 'custom',
      message: issue.message,
      path: [...prefix, ...issue.path].map((segment) => segment as string | number),
    });
  }
}

/** An agent or a shell step (what `steps:` and a map's `do:` and `reduce:` hold). */
const plainStepSchema = z.unknown().transform((value, context) => {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  const hasAgent = isObject && 'agent' in value;
  const hasShell = isObject && 'shell' in value;
  if (hasAgent === hasShell) {
    context.addIssue({
      code: 'custom',
      message: hasAgent
        ? 'a step is either an agent step or a shell step, not both'
        : isObject && 'map' in value
          ? 'a map step cannot run inside another map step'
          : 'a step needs `agent:` or `shell:`',
    });
    return z.NEVER;
  }
  const parsed = (hasAgent ? agentStepSchema : shellStepSchema).safeParse(value);
  if (!parsed.success) {
    addIssues(context, parsed.error.issues);
    return z.NEVER;
  }
  return parsed.data;
});

const relativePathSchema = z
  .string()
  .min(1)
  .refine(
    (path) => !path.startsWith('/') && !path.split(/[\\/]/).includes('..'),
    'paths stay inside the workspace (relative, no ..)',
  );

const ITEMS_FIX =
  'items: is a list ([a, b] or objects with an id:), { file: items.json } (JSON or JSONL), { glob: "src/**/*.ts" }, or a template that renders to JSON ("{{ steps.find.output }}").';

/**
 * Where a map step's items come from: a list in the spec, a JSON or JSONL file, the files a
 * glob matches (paths relative to the workspace), or a template that renders to JSON (an
 * earlier step's output: `{{ steps.find.output }}`).
 */
export const mapItemsSchema = z
  .unknown()
  .transform((value, context): JsonValue[] | { file: string } | { glob: string } | { template: string } => {
    const fail = (message: string, path: PropertyKey[] = []) => {
      context.addIssue({ code: 'custom', message, path: path.map((segment) => segment as string | number) });
      return z.NEVER;
    };
    if (Array.isArray(value)) {
      const parsed = z.array(jsonValueSchema).safeParse(value);
      if (!parsed.success) return fail('items must be plain values (text, numbers, lists, maps)');
      return parsed.data;
    }
    if (typeof value === 'string') {
      if (!value.includes('{{')) return fail(`a text items: is a template that renders to JSON; ${ITEMS_FIX}`);
      return { template: value };
    }
    if (typeof value === 'object' && value !== null) {
      const keys = Object.keys(value);
      const [key] = keys;
      if (keys.length !== 1 || (key !== 'file' && key !== 'glob')) return fail(`unknown items source; ${ITEMS_FIX}`);
      const path = relativePathSchema.safeParse((value as Record<string, unknown>)[key]);
      if (!path.success) return fail(`${key}: ${path.error.issues[0]?.message ?? 'is not a path'}`, [key]);
      return key === 'file' ? { file: path.data } : { glob: path.data };
    }
    return fail(`items is missing or of the wrong kind; ${ITEMS_FIX}`);
  });

export const mapStepSchema = z.strictObject({
  id: stepIdSchema.optional(),
  name: z.string().min(1).optional(),
  map: z.strictObject({
    items: mapItemsSchema,
    do: z
      .array(plainStepSchema, {
        error: (issue) =>
          issue.input === undefined ? 'a map step needs do: (the steps run for each item)' : 'do: is a list of steps',
      })
      .min(1, 'a map step needs at least one step in do:'),
    parallel: z
      .number()
      .int('parallel is a whole number of items')
      .min(1, 'parallel is at least 1')
      .max(MAX_MAP_PARALLEL, `parallel is at most ${MAX_MAP_PARALLEL}`)
      .default(1),
    reduce: plainStepSchema.optional(),
    /** Files written for each item once its steps passed (paths and contents are templates). */
    artifacts: z.array(z.strictObject({ path: z.string().min(1), from: z.string() })).default([]),
  }),
});

const stepSchema = z.unknown().transform((value, context) => {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'map' in value) {
    if ('agent' in value || 'shell' in value) {
      context.addIssue({ code: 'custom', message: 'a map step has `map:` only; its steps go under map.do' });
      return z.NEVER;
    }
    const parsed = mapStepSchema.safeParse(value);
    if (!parsed.success) {
      addIssues(context, parsed.error.issues);
      return z.NEVER;
    }
    return parsed.data;
  }
  const parsed = plainStepSchema.safeParse(value);
  if (!parsed.success) {
    addIssues(context, parsed.error.issues);
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
export type WorkflowMapStep = z.infer<typeof mapStepSchema>;
/** An agent or a shell step: what a map's `do:` and `reduce:` hold. */
export type WorkflowPlainStep = WorkflowAgentStep | WorkflowShellStep;
export type MapItemsSource = z.infer<typeof mapItemsSchema>;

export function isShellStep(step: WorkflowStep): step is WorkflowShellStep {
  return 'shell' in step;
}

export function isMapStep(step: WorkflowStep): step is WorkflowMapStep {
  return 'map' in step;
}

const fixes: Array<[RegExp, string]> = [
  [/\.map\.items/, 'items: is a list, { file: items.json }, { glob: "src/*.ts" } or "{{ steps.<id>.output }}".'],
  [/\.map\.parallel$/, 'parallel: N runs up to N items at once (1 by default; see limits.maxParallel).'],
  [/\.map\.do/, 'map.do is a list of agent or shell steps run for each item, e.g. - shell: "lint {{ item.path }}".'],
  [/\.map\.reduce/, 'map.reduce is one agent or shell step that sees {{ map.results }}.'],
  [/\.map$/, 'Write a map step as map: { items: [...], do: [ - agent/shell steps ], parallel: 2, reduce: optional }.'],
  [/^steps\[\d+\]\.retry\.attempts$/, 'Give the total number of tries, e.g. retry: { attempts: 3, backoff: 1s }.'],
  [/^steps\[\d+\]\.retry\.backoff$/, 'Write the delay between attempts as 500ms, 1s or 2m.'],
  [
    /^steps\[\d+\]$/,
    'Each step is `- agent: <name>` with `input:`, `- shell: "<command>"`, or `- map: { items, do }`.',
  ],
  [/^agents/, 'Declare agents as `name: { prompt: "...", model: optional, provider: optional }`.'],
  [/^outputs/, 'Write outputs as `outputs: { artifacts: [{ path: report.md, from: "{{ last_response }}" }] }`.'],
];

function fixFor(key: string): string {
  return fixes.find(([pattern]) => pattern.test(key))?.[1] ?? 'See docs/workflow-spec.md for the format.';
}

export { hashText } from './spec-hash.js';

/** Parses and validates a workflow spec's text; `file` names it in errors. */
export function parseWorkflowSpec(text: string, file: string | null): WorkflowSpec {
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

/** What a template may refer to where it stands. */
interface AllowedReferences {
  variables: Set<string> | null;
  stepsBefore: number;
  error: boolean;
  lastResponse: boolean;
  /** Which steps are shell steps (only those have an exit code), by index. */
  shellSteps?: readonly boolean[];
  /** Earlier steps by id and their kind (the workflow's, and inside a map item its earlier do: steps). */
  stepIds?: ReadonlyMap<string, StepKind>;
  /** Inside a map step's do: (or its per-item artifacts): `{{ item }}`, `{{ item_id }}`, `{{ item_index }}`. */
  item?: boolean;
  /** In a map step's reduce: `{{ map.results }}` and the counts. */
  map?: boolean;
}

type StepKind = 'agent' | 'shell' | 'map';

function kindOf(step: WorkflowStep): StepKind {
  if (isMapStep(step)) return 'map';
  return isShellStep(step) ? 'shell' : 'agent';
}

function checkReferences(
  references: TemplateReference[],
  location: TemplateLocation,
  allowed: AllowedReferences,
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
    if (reference.kind === 'step-id') {
      const kind = allowed.stepIds?.get(reference.id);
      if (kind === undefined) {
        const known = [...(allowed.stepIds?.keys() ?? [])];
        fail(
          `{{ ${describeReference(reference)} }} refers to no earlier step with id "${reference.id}"`,
          known.length > 0
            ? `Refer to a step that runs before this one: ${known.join(', ')}.`
            : 'Give an earlier step an id: and refer to it as {{ steps.<id>.output }}.',
        );
      }
      if (reference.field === 'exit_code' && kind !== 'shell') {
        fail(
          `{{ ${describeReference(reference)} }} refers to ${kind === 'map' ? 'a map' : 'an agent'} step, which has no exit code`,
          `Use {{ steps.${reference.id}.output }}.`,
        );
      }
    }
    if ((reference.kind === 'item' || reference.kind === 'item-id' || reference.kind === 'item-index') && !allowed.item)
      fail(
        `{{ ${describeReference(reference)} }} is only available in the do: steps of a map step`,
        'Use it inside map.do (or map.artifacts); map.reduce sees every item through {{ map.results }}.',
      );
    if (reference.kind === 'map' && !allowed.map)
      fail(
        `{{ ${describeReference(reference)} }} is only available in map.reduce`,
        'Later steps read a map step through {{ steps.<id>.output }} (its reduce output, else its results).',
      );
    if (reference.kind === 'error' && !allowed.error)
      fail('{{ error }} is only available in on_failure inputs', 'Use it inside on_failure.input.');
    if (reference.kind === 'last-response' && !allowed.lastResponse) {
      fail('{{ last_response }} is not available here', 'Agent prompts may use variables only.');
    }
  }
}

/** The error for a step naming an agent the spec does not declare. */
function unknownAgentError(spec: WorkflowSpec, file: string | null, name: string, key: string): ConfigError {
  const agentNames = Object.keys(spec.agents);
  return new ConfigError({
    file,
    key,
    problem: `unknown agent "${name}"`,
    fix:
      agentNames.length === 0
        ? 'Declare it under agents: (e.g. agents: { name: { prompt: "..." } }).'
        : `Declare it under agents:, or use one of: ${agentNames.join(', ')}.`,
  });
}

/** Checks `{{ ... }}` in a template against what may be referred to where it stands. */
type TemplateCheck = (text: string, key: string, allowed: Omit<AllowedReferences, 'variables' | 'shellSteps'>) => void;

/** An agent or shell step (a workflow step, a map's do: or reduce: step): agents and templates. */
function checkPlainStep(
  spec: WorkflowSpec,
  file: string | null,
  step: WorkflowPlainStep,
  key: string,
  check: TemplateCheck,
  allowed: Omit<AllowedReferences, 'variables' | 'shellSteps' | 'error' | 'lastResponse'>,
): void {
  if (isShellStep(step)) {
    check(step.shell, `${key}.shell`, { ...allowed, error: false, lastResponse: true });
    if (step.on_failure) {
      if (!spec.agents[step.on_failure.agent])
        throw unknownAgentError(spec, file, step.on_failure.agent, `${key}.on_failure.agent`);
      check(step.on_failure.input, `${key}.on_failure.input`, { ...allowed, error: true, lastResponse: true });
    }
    return;
  }
  if (!spec.agents[step.agent]) throw unknownAgentError(spec, file, step.agent, `${key}.agent`);
  check(step.input, `${key}.input`, { ...allowed, error: false, lastResponse: true });
}

/** Refuses a second step with the same explicit id in one list of steps. */
function checkUniqueIds(steps: readonly WorkflowStep[], file: string | null, keyOf: (index: number) => string): void {
  const ids = new Map<string, number>();
  steps.forEach((step, index) => {
    if (step.id === undefined) return;
    const first = ids.get(step.id);
    if (first !== undefined) {
      throw new ConfigError({
        file,
        key: `${keyOf(index)}.id`,
        problem: `step id "${step.id}" is already used by ${keyOf(first)}`,
        fix: 'Give each step its own id: the id is how a resume finds what the step already did.',
      });
    }
    ids.set(step.id, index);
  });
}

/** A map step: its items template, its do: steps (per item), its reduce: and per-item artifacts. */
function checkMapStep(
  spec: WorkflowSpec,
  file: string | null,
  step: WorkflowMapStep,
  index: number,
  check: TemplateCheck,
  stepIds: ReadonlyMap<string, StepKind>,
): void {
  const key = `steps[${index}].map`;
  const { map } = step;
  if ('template' in map.items) {
    check(map.items.template, `${key}.items`, { stepsBefore: index, stepIds, error: false, lastResponse: true });
  }
  checkUniqueIds(map.do, file, (at) => `${key}.do[${at}]`);
  const doIds = workflowStepIds(map.do);
  const visible = new Map(stepIds);
  map.do.forEach((doStep, at) => {
    checkPlainStep(spec, file, doStep, `${key}.do[${at}]`, check, {
      stepsBefore: index,
      stepIds: visible,
      item: true,
    });
    visible.set(doIds[at] ?? '', kindOf(doStep));
  });
  map.artifacts.forEach((artifact, at) => {
    const where = { stepsBefore: index, stepIds: visible, item: true, error: false, lastResponse: true };
    check(artifact.path, `${key}.artifacts[${at}].path`, where);
    check(artifact.from, `${key}.artifacts[${at}].from`, where);
  });
  if (map.reduce) {
    checkPlainStep(spec, file, map.reduce, `${key}.reduce`, check, { stepsBefore: index, stepIds, map: true });
  }
}

/**
 * The checks that need the whole document: agent names used by steps exist, templates refer
 * to declared variables and earlier steps. `variables` adds names given on the command line.
 */
export function checkWorkflow(spec: WorkflowSpec, file: string | null, extraVariables: Iterable<string> = []): void {
  const variables = new Set([...Object.keys(spec.variables), ...extraVariables]);
  const shellSteps = spec.steps.map((step) => isShellStep(step));
  // A template may refer to what exists where it stands: variables, earlier steps, and in
  // on_failure inputs the error.
  const check: TemplateCheck = (text, key, allowed) => {
    const location = { file, key };
    checkReferences(templateReferences(text, location), location, { variables, shellSteps, ...allowed });
  };
  for (const [name, agent] of Object.entries(spec.agents)) {
    check(agent.prompt, `agents.${name}.prompt`, { stepsBefore: 0, error: false, lastResponse: false });
  }
  checkUniqueIds(spec.steps, file, (index) => `steps[${index}]`);
  const ids = workflowStepIds(spec.steps);
  const stepIds = new Map<string, StepKind>();
  spec.steps.forEach((step, index) => {
    if (isMapStep(step)) checkMapStep(spec, file, step, index, check, stepIds);
    else checkPlainStep(spec, file, step, `steps[${index}]`, check, { stepsBefore: index, stepIds });
    stepIds.set(ids[index] ?? '', kindOf(step));
  });
  spec.outputs.artifacts.forEach((artifact, index) => {
    check(artifact.from, `outputs.artifacts[${index}].from`, {
      stepsBefore: spec.steps.length,
      stepIds,
      error: false,
      lastResponse: true,
    });
  });
}

/** A map step's `parallel:` above the configured limit is refused before anything runs. */
export function checkParallelLimit(spec: WorkflowSpec, file: string | null, maxParallel: number): void {
  spec.steps.forEach((step, index) => {
    if (!isMapStep(step) || step.map.parallel <= maxParallel) return;
    throw new ConfigError({
      file,
      key: `steps[${index}].map.parallel`,
      problem: `parallel: ${step.map.parallel} is above the limit of ${maxParallel} items at once`,
      fix: `Lower it to ${maxParallel} or less, or raise limits.maxParallel in .conclave.yaml (at most ${MAX_MAP_PARALLEL}).`,
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
