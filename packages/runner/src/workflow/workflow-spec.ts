// The workflow spec format (binding keys, docs/architecture.md#workflow-specs-and-shell-steps): parsing, zod validation with errors
// that name the file, the path in the document and the fix, and the checks that must
// pass before anything runs (agent names, template references).
import { lazySchema, once } from '@resume/core/lazy-schema';
import { ConfigError, type JsonValue, jsonValueSchema } from '@resume/core/spec';
import { z } from 'zod';
import { parseDuration } from '../config/duration.js';
import { formatIssuePath, issueMessage, listSome } from './issue-path.js';
import { MAX_MAP_PARALLEL } from './map-limits.js';
import { checkScoredStep, scoredStepFixes, scoredStepKindOf, scoredStepSchemas } from './scored-steps.js';
import { recordedDocumentOf, type SpecDocument, specDocumentOf } from './spec-document.js';
import { type StepIds, workflowStepIds, workflowStepTree } from './step-ids.js';
import {
  describeReference,
  overrideVariables,
  type TemplateLocation,
  type TemplateReference,
  templateReferences,
} from './template.js';
import { readYamlData } from './yaml-error.js';

/** Copies a nested parse's issues into the outer one, under the same path (after `prefix`). */
function addIssues(context: z.RefinementCtx, issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): void {
  for (const issue of issues) {
    context.addIssue({
      code: 'custom',
      message: issueMessage(issue),
      path: [...prefix, ...issue.path].map((segment) => segment as string | number),
    });
  }
}

/** `value` parsed by `schema` inside a transform: its issues reported as the transform's own, or z.NEVER. */
function parseWithin<T extends z.ZodType>(schema: T, value: unknown, context: z.RefinementCtx): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    addIssues(context, parsed.error.issues);
    return z.NEVER;
  }
  return parsed.data;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ITEMS_FIX =
  'items: is a list ([a, b] or objects with an id:), { file: items.json } (JSON or JSONL), { glob: "src/**/*.ts" }, or a template that renders to JSON ("{{ steps.find.output }}").';

/** The spec's schemas, built on their first use: a command that reads no workflow spec builds none of them. */
const schemas = once(() => {
  const variableValueSchema = z.union([z.string(), z.number(), z.boolean()]).transform((value) => String(value));
  const agentNameSchema = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'agent names are letters, digits, - and _');

  const workflowAgentSchema = z.strictObject({
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

  /** How long one attempt of a step may take; more fails the attempt (its command's group is stopped). */
  const timeoutSchema = durationSchema.refine((ms) => ms > 0, 'a timeout is longer than 0');

  const retrySchema = z.strictObject({
    attempts: z.number().int().min(1, 'attempts counts the first try, so it is at least 1').max(100),
    backoff: durationSchema.optional(),
  });

  const stepIdSchema = z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
      'a step id is letters, digits, ., - and _ (starting with a letter or digit)',
    );

  const agentStepSchema = z.strictObject({
    id: stepIdSchema.optional(),
    name: z.string().min(1).optional(),
    agent: agentNameSchema,
    input: z.string().default('{{ last_response }}'),
    timeout: timeoutSchema.optional(),
  });

  const onFailureSchema = z.strictObject({ agent: agentNameSchema, input: z.string().min(1) });

  const shellStepSchema = z.strictObject({
    id: stepIdSchema.optional(),
    name: z.string().min(1).optional(),
    shell: z.string().min(1, 'a shell step needs a command'),
    /** Variables the command gets that are otherwise kept from it (the provider API keys). */
    env: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an env: entry is a variable name, such as OPENAI_API_KEY'))
      .optional(),
    retry: retrySchema.optional(),
    on_failure: onFailureSchema.optional(),
    timeout: timeoutSchema.optional(),
  });

  /** An agent or shell step: a step of the workflow, a member of a parallel group, a map's do: or reduce: step. */
  const leafStepSchema = z.unknown().transform((value, context) => {
    const hasAgent = isRecord(value) && 'agent' in value;
    const hasShell = isRecord(value) && 'shell' in value;
    if (isRecord(value) && 'map' in value && !hasAgent && !hasShell) {
      context.addIssue({
        code: 'custom',
        message: 'a map step runs on its own: not inside a parallel group or another map step',
      });
      return z.NEVER;
    }
    if (isRecord(value) && ('sleep' in value || 'sleep_until' in value) && !hasAgent && !hasShell) {
      context.addIssue({
        code: 'custom',
        message: 'a sleep step runs on its own on the main line: not inside a parallel group, a map step or a loop',
      });
      return z.NEVER;
    }
    if (isRecord(value) && 'parallel' in value) {
      context.addIssue({
        code: 'custom',
        message: 'parallel groups do not nest: a step of a parallel group is an agent step or a shell step',
      });
      return z.NEVER;
    }
    const scoredKind = isRecord(value) && !hasAgent && !hasShell ? scoredStepKindOf(value) : null;
    if (scoredKind !== null) {
      context.addIssue({
        code: 'custom',
        message: `a ${scoredKind} step runs on its own: not inside a parallel group, a map step or another ${scoredKind} step`,
      });
      return z.NEVER;
    }
    if (hasAgent === hasShell) {
      context.addIssue({
        code: 'custom',
        message: hasAgent
          ? 'a step is either an agent step or a shell step, not both'
          : 'a step needs `agent:` or `shell:`',
      });
      return z.NEVER;
    }
    return parseWithin(hasAgent ? agentStepSchema : shellStepSchema, value, context);
  });

  /** A durable timer on the main line: `sleep: 10m`, or `sleep_until:` an ISO time. */
  const sleepStepSchema = z.strictObject({
    id: stepIdSchema.optional(),
    name: z.string().min(1).optional(),
    sleep: durationSchema,
  });
  const sleepUntilStepSchema = z.strictObject({
    id: stepIdSchema.optional(),
    name: z.string().min(1).optional(),
    sleep_until: z
      .string({ error: 'sleep_until is a time in quotes, e.g. "2026-12-01T09:00:00Z"' })
      .refine(
        (value) =>
          /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
          !Number.isNaN(Date.parse(value)),
        'sleep_until is an ISO time with its zone, e.g. "2026-12-01T09:00:00Z" or "2026-12-01T09:00:00+01:00"',
      ),
  });

  /** Steps that run concurrently, joined before the next step. */
  const parallelStepSchema = z.strictObject({
    id: stepIdSchema.optional(),
    name: z.string().min(1).optional(),
    parallel: z.array(leafStepSchema).min(1, 'a parallel group needs at least one step'),
    /** How many of the group's steps run at once (default: all of them). */
    max_concurrency: z.number().int().min(1, 'max_concurrency is at least 1').max(64).optional(),
  });

  const relativePathSchema = z
    .string()
    .min(1)
    .refine(
      (path) => !path.startsWith('/') && !path.split(/[\\/]/).includes('..'),
      'paths stay inside the workspace (relative, no ..)',
    );

  /**
   * Where a map step's items come from: a list in the spec, a JSON or JSONL file, the files a
   * glob matches (paths relative to the workspace), or a template that renders to JSON (an
   * earlier step's output: `{{ steps.find.output }}`).
   */
  const mapItemsSchema = z
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
      if (isRecord(value)) {
        const keys = Object.keys(value);
        const [key] = keys;
        if (keys.length !== 1 || (key !== 'file' && key !== 'glob')) return fail(`unknown items source; ${ITEMS_FIX}`);
        const path = relativePathSchema.safeParse(value[key]);
        if (!path.success) return fail(`${key}: ${path.error.issues[0]?.message ?? 'is not a path'}`, [key]);
        return key === 'file' ? { file: path.data } : { glob: path.data };
      }
      return fail(`items is missing or of the wrong kind; ${ITEMS_FIX}`);
    });

  /** A step run once per work item (see docs/workflow-spec.md, "Map steps"). */
  const mapStepSchema = z.strictObject({
    id: stepIdSchema.optional(),
    name: z.string().min(1).optional(),
    map: z.strictObject({
      items: mapItemsSchema,
      do: z
        .array(leafStepSchema, {
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
      reduce: leafStepSchema.optional(),
      /** Each item in a git worktree of its own, merged into the workspace once its steps passed. */
      worktree: z.boolean({ error: 'worktree is true or false' }).optional(),
      /** An empty item list fails the run instead of passing with a notice. */
      require_items: z.boolean().default(false),
      /** Files written for each item once its steps passed (paths and contents are templates). */
      artifacts: z.array(z.strictObject({ path: z.string().min(1), from: z.string() })).default([]),
    }),
  });

  const scored = scoredStepSchemas({
    stepIdSchema,
    agentNameSchema,
    envSchema: shellStepSchema.shape.env,
    leafStepSchema,
  });

  const stepSchema = z.unknown().transform((value, context) => {
    const scoredKind = isRecord(value) ? scoredStepKindOf(value) : null;
    if (scoredKind !== null && isRecord(value)) {
      if ('agent' in value || 'shell' in value || 'map' in value || 'parallel' in value) {
        context.addIssue({
          code: 'custom',
          message: `a ${scoredKind} step has \`${scoredKind}:\` only; what it runs goes inside it`,
        });
        return z.NEVER;
      }
      return parseWithin(
        scoredKind === 'validate' ? scored.validateStepSchema : scored.goalSeekStepSchema,
        value,
        context,
      );
    }
    if (isRecord(value) && ('sleep' in value || 'sleep_until' in value)) {
      const others = ['agent', 'shell', 'map', 'parallel', ...('sleep' in value ? ['sleep_until'] : [])].filter(
        (key) => key in value,
      );
      if (others.length > 0) {
        context.addIssue({
          code: 'custom',
          message: `a sleep step has \`${'sleep' in value ? 'sleep' : 'sleep_until'}:\` only, not \`${others[0]}:\`; make it a step of its own`,
        });
        return z.NEVER;
      }
      return parseWithin('sleep' in value ? sleepStepSchema : sleepUntilStepSchema, value, context);
    }
    if (isRecord(value) && 'map' in value && !('parallel' in value)) {
      if ('agent' in value || 'shell' in value) {
        context.addIssue({ code: 'custom', message: 'a map step has `map:` only; its steps go under map.do' });
        return z.NEVER;
      }
      return parseWithin(mapStepSchema, value, context);
    }
    if (isRecord(value) && 'parallel' in value) {
      if ('agent' in value || 'shell' in value) {
        context.addIssue({
          code: 'custom',
          message: 'a step is a parallel group or an agent or shell step, not both',
        });
        return z.NEVER;
      }
      return parseWithin(parallelStepSchema, value, context);
    }
    return parseWithin(leafStepSchema, value, context);
  });

  const workflowSpecSchema = z.strictObject({
    name: z.string().min(1),
    description: z.string().optional(),
    /** Runs in a new git worktree on its own branch (docs/workflow-spec.md, "Worktrees"). */
    worktree: z.boolean({ error: 'worktree is true or false' }).optional(),
    variables: z.record(z.string(), variableValueSchema).default({}),
    // A workflow of shell steps only needs no agent; a step naming an undeclared one is refused.
    agents: z.record(agentNameSchema, workflowAgentSchema).default({}),
    /** What every step gets unless it says otherwise. */
    defaults: z.strictObject({ timeout: timeoutSchema.optional() }).optional(),
    /** MCP servers (`mcp.servers` in the config) whose tools every agent step may call. */
    mcp: z.array(z.string().min(1)).default([]),
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
  return {
    workflowAgentSchema,
    retrySchema,
    agentStepSchema,
    onFailureSchema,
    shellStepSchema,
    sleepStepSchema,
    sleepUntilStepSchema,
    parallelStepSchema,
    mapItemsSchema,
    mapStepSchema,
    validateStepSchema: scored.validateStepSchema,
    goalSeekStepSchema: scored.goalSeekStepSchema,
    workflowSpecSchema,
  };
});

export const workflowAgentSchema = lazySchema(() => schemas().workflowAgentSchema);
export const retrySchema = lazySchema(() => schemas().retrySchema);
export const agentStepSchema = lazySchema(() => schemas().agentStepSchema);
export const onFailureSchema = lazySchema(() => schemas().onFailureSchema);
export const shellStepSchema = lazySchema(() => schemas().shellStepSchema);
/** A durable timer step (`sleep: 10m`, `sleep_until: <ISO time>`). */
export const sleepStepSchema = lazySchema(() => schemas().sleepStepSchema);
export const sleepUntilStepSchema = lazySchema(() => schemas().sleepUntilStepSchema);
/** Steps that run concurrently, joined before the next step. */
export const parallelStepSchema = lazySchema(() => schemas().parallelStepSchema);
/** Where a map step's items come from: a list, a JSON or JSONL file, a glob, or a template that renders to JSON. */
export const mapItemsSchema = lazySchema(() => schemas().mapItemsSchema);
/** A step run once per work item (see docs/workflow-spec.md, "Map steps"). */
export const mapStepSchema = lazySchema(() => schemas().mapStepSchema);
/** A check run until its completion reaches a threshold (see docs/workflow-spec.md, "Validate steps"). */
export const validateStepSchema = lazySchema(() => schemas().validateStepSchema);
/** A step repeated until its score reaches a threshold (see docs/workflow-spec.md, "Goal-seek steps"). */
export const goalSeekStepSchema = lazySchema(() => schemas().goalSeekStepSchema);
/** A workflow spec's document (docs/architecture.md#workflow-specs-and-shell-steps), built on first use. */
export const workflowSpecSchema = lazySchema(() => schemas().workflowSpecSchema);

export type WorkflowSpec = z.infer<typeof workflowSpecSchema>;
export type WorkflowStep = WorkflowSpec['steps'][number];
export type WorkflowAgentStep = z.infer<typeof agentStepSchema>;
export type WorkflowShellStep = z.infer<typeof shellStepSchema>;
export type WorkflowParallelStep = z.infer<typeof parallelStepSchema>;
export type WorkflowSleepStep = z.infer<typeof sleepStepSchema> | z.infer<typeof sleepUntilStepSchema>;
/** A step that runs on its own: a step of the workflow or a member of a parallel group. */
export type WorkflowLeafStep = WorkflowAgentStep | WorkflowShellStep;
export type WorkflowAgent = z.infer<typeof workflowAgentSchema>;
export type WorkflowMapStep = z.infer<typeof mapStepSchema>;
export type MapItemsSource = z.infer<typeof mapItemsSchema>;
export type WorkflowValidateStep = z.infer<typeof validateStepSchema>;
export type WorkflowGoalSeekStep = z.infer<typeof goalSeekStepSchema>;

export function isShellStep(step: WorkflowStep): step is WorkflowShellStep {
  return 'shell' in step;
}

export function isSleepStep(step: WorkflowStep): step is WorkflowSleepStep {
  return 'sleep' in step || 'sleep_until' in step;
}

export function isParallelStep(step: WorkflowStep): step is WorkflowParallelStep {
  return 'parallel' in step;
}

export function isMapStep(step: WorkflowStep): step is WorkflowMapStep {
  return 'map' in step;
}

export function isValidateStep(step: WorkflowStep): step is WorkflowValidateStep {
  return 'validate' in step;
}

export function isGoalSeekStep(step: WorkflowStep): step is WorkflowGoalSeekStep {
  return 'goal_seek' in step;
}

const fixes: Array<[RegExp, string]> = [
  [/\.timeout$/, 'Write how long one attempt may take as 30s, 5m or 1h, e.g. timeout: 10m.'],
  ...scoredStepFixes,
  [/\.map\.items/, 'items: is a list, { file: items.json }, { glob: "src/*.ts" } or "{{ steps.<id>.output }}".'],
  [/\.map\.parallel$/, 'parallel: N runs up to N items at once (1 by default; see limits.maxParallel).'],
  [/\.map\.do\[\d+\]\.retry\.attempts$/, 'Give the total number of tries, e.g. retry: { attempts: 3, backoff: 1s }.'],
  [
    /\.map\.do/,
    'map.do is a list of agent or shell steps run for each item, e.g. - shell: "lint \\"$CONCLAVE_ITEM\\"".',
  ],
  [/\.map\.reduce/, 'map.reduce is one agent or shell step that sees {{ map.results }}.'],
  [
    /\.map$/,
    'Write a map step as map: { items: [...], do: [ - agent/shell steps ], parallel: 2, reduce: optional, require_items: true|false }.',
  ],
  [
    /^steps\[\d+\](\.parallel\[\d+\])?\.retry\.attempts$/,
    'Give the total number of tries, e.g. retry: { attempts: 3, backoff: 1s }.',
  ],
  [/^steps\[\d+\](\.parallel\[\d+\])?\.retry\.backoff$/, 'Write the delay between attempts as 500ms, 1s or 2m.'],
  [/^defaults/, 'Write the defaults as defaults: { timeout: 10m }.'],
  [/^mcp/, 'List MCP servers defined under mcp.servers in the config: mcp: [github, files].'],
  [
    /^steps\[\d+\]\.parallel\[\d+\]$/,
    'List the group\'s steps under parallel:, each `- agent: <name>` with `input:` or `- shell: "<command>"`; to run more steps at once, put them all in one group.',
  ],
  [
    /^steps\[\d+\]\.parallel$/,
    'Give the group its steps: `- parallel: [ { shell: "npm run lint" }, { shell: "npm test" } ]`.',
  ],
  [/^steps\[\d+\]\.max_concurrency$/, "Give how many of the group's steps run at once, e.g. max_concurrency: 2."],
  [
    /^steps\[\d+\]$/,
    'Each step is `- agent: <name>` with `input:`, `- shell: "<command>"`, `- parallel:` with a list of such steps, `- map: { items, do }`, `- validate: { shell, threshold }` or `- goal_seek: { agent, input, validate, threshold }`.',
  ],
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
let lastParsed: { text: string; file: string | null; spec: WorkflowSpec; raw: unknown } | null = null;

/**
 * Parses and validates a workflow spec's text; `file` names it in errors. The recorded text
 * of a session whose journal holds its YAML data (spec-document.ts) is not parsed again: that
 * data is validated exactly as the parsed YAML would be.
 */
export function parseWorkflowSpec(text: string, file: string | null): WorkflowSpec {
  if (lastParsed && lastParsed.text === text && lastParsed.file === file) return structuredClone(lastParsed.spec);
  const raw = recordedDocumentOf(text) ?? readWorkflowYaml(text, file);
  const spec = validateWorkflowData(raw, file);
  lastParsed = { text, file, spec: structuredClone(spec), raw };
  return spec;
}

/** The YAML data of a spec's text, to journal with it (undefined: JSON cannot hold it exactly). */
export function workflowSpecDocument(text: string, file: string | null): SpecDocument | undefined {
  if (!(lastParsed && lastParsed.text === text && lastParsed.file === file)) parseWorkflowSpec(text, file);
  return specDocumentOf((lastParsed as NonNullable<typeof lastParsed>).raw);
}

function readWorkflowYaml(text: string, file: string | null): unknown {
  return readYamlData(text, {
    file,
    key: null,
    syntaxFix: 'Fix the YAML syntax at the line shown.',
    aliasFix: 'Fix the YAML anchors and aliases (&name, *name).',
  });
}

function validateWorkflowData(raw: unknown, file: string | null): WorkflowSpec {
  const result = workflowSpecSchema.safeParse(raw);
  if (!result.success) {
    const [first, ...rest] = result.error.issues;
    const key = formatIssuePath(first?.path ?? []);
    const more =
      rest.length > 0
        ? ` (and ${rest.length} more: ${listSome(
            rest.map((issue) => `${formatIssuePath(issue.path)}: ${issueMessage(issue)}`),
            '; ',
          )})`
        : '';
    throw new ConfigError({
      file,
      key,
      problem: `${first ? issueMessage(first) : 'invalid'}${more}`,
      fix: fixFor(key),
    });
  }
  checkWorkflow(result.data, file);
  return result.data;
}

/** What a template may refer to where it stands. */
interface AllowedReferences {
  variables: Set<string> | null;
  /** Steps before this one, by position. */
  stepsBefore: number;
  error: boolean;
  lastResponse: boolean;
  /** Each step's kind, by position and by id. */
  kinds?: { byIndex: readonly StepKind[]; byId: ReadonlyMap<string, StepKind> };
  /** Ids of the steps that have run before this one (parallel groups' members too). */
  idsBefore?: ReadonlySet<string>;
  /** The other members of this step's parallel group: they run at the same time. */
  concurrent?: ReadonlySet<string>;
  /** Inside a map step's do: (or its per-item artifacts): `{{ item }}`, `{{ item_id }}`, `{{ item_index }}`. */
  item?: boolean;
  /** In a map step's reduce: `{{ map.results }}` and the counts. */
  map?: boolean;
  /** In a validate step's on_incomplete: `{{ validation.* }}`. */
  validation?: boolean;
  /** In a goal_seek step: `{{ goal.* }}`; `output` only in its validate. */
  goal?: 'step' | 'validate';
}

type StepKind = 'agent' | 'shell' | 'parallel' | 'map' | 'validate' | 'goal_seek' | 'sleep';

function checkStepReference(
  reference: Extract<TemplateReference, { kind: 'step' | 'step-id' }>,
  allowed: AllowedReferences,
  fail: (problem: string, fix: string) => never,
): void {
  const text = `{{ ${describeReference(reference)} }}`;
  let kind: StepKind | undefined;
  let response: string;
  if (reference.kind === 'step') {
    if (reference.index >= allowed.stepsBefore) {
      const before = allowed.stepsBefore;
      fail(
        `${text} refers to a step that has not run yet`,
        before === 0
          ? 'Step 1 is the first step: it cannot refer to any earlier step. Use a variable, or move it after the step it reads.'
          : `Templates index steps from 0 (steps[0] is step 1); step ${before + 1} may refer to ${before === 1 ? 'steps[0] only' : `steps[0] to steps[${before - 1}]`}.`,
      );
    }
    kind = allowed.kinds?.byIndex[reference.index];
    response = `{{ steps[${reference.index}].response }}`;
  } else {
    if (allowed.concurrent?.has(reference.id)) {
      fail(
        `${text} refers to a step of the same parallel group, which runs at the same time as this one`,
        'Read it in a step after the group, or move one of the two steps out of the group.',
      );
    }
    if (allowed.idsBefore && !allowed.idsBefore.has(reference.id)) {
      const known = allowed.kinds?.byId.has(reference.id) ?? false;
      const before = [...allowed.idsBefore].join(', ');
      fail(
        known
          ? `${text} refers to a step that has not run yet`
          : `${text} refers to no step: no step has the id "${reference.id}"`,
        before.length > 0
          ? `Refer to an earlier step by its id: ${before}.`
          : 'Only steps that ran before this one can be referred to.',
      );
    }
    kind = allowed.kinds?.byId.get(reference.id);
    response = `{{ steps.${reference.id}.output }}`;
  }
  if (kind === 'sleep') {
    fail(`${text} refers to a sleep step, which has no output`, 'Refer to the step before it.');
  }
  if (kind === 'parallel') {
    fail(
      `${text} refers to a parallel group, which has no output of its own`,
      'Refer to one of its steps by id, e.g. {{ steps.<id>.output }}.',
    );
  }
  if (kind === 'agent' && reference.field === 'exit_code') {
    fail(`${text} refers to an agent step, which has no exit code`, `Use ${response} for an agent step's answer.`);
  }
  if ((kind === 'validate' || kind === 'goal_seek') && reference.field === 'exit_code') {
    fail(
      `${text} refers to a ${kind} step, which has no exit code`,
      `Use ${response} (${kind === 'validate' ? 'its last check' : 'its best attempt'}).`,
    );
  }
  if (kind === 'map' && reference.field === 'exit_code') {
    fail(
      `${text} refers to a map step, which has no exit code`,
      `Use ${response} (its reduce output, else its results).`,
    );
  }
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
    if (reference.kind === 'step' || reference.kind === 'step-id') checkStepReference(reference, allowed, fail);
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
    if (reference.kind === 'validation' && !allowed.validation)
      fail(
        `{{ ${describeReference(reference)} }} is only available in validate.on_incomplete`,
        'Use it in the on_incomplete step of a validate step; later steps read {{ steps.<id>.output }} (its last check).',
      );
    if (reference.kind === 'goal' && (!allowed.goal || (reference.field === 'output' && allowed.goal !== 'validate')))
      fail(
        `{{ ${describeReference(reference)} }} is only available in ${reference.field === 'output' ? "a goal_seek step's validate" : 'a goal_seek step'}`,
        reference.field === 'output'
          ? "Score the attempt's output in goal_seek.validate; the next attempt reads {{ goal.previous_output }}."
          : 'Use it in goal_seek.input (or its shell command) and goal_seek.validate; later steps read {{ steps.<id>.output }}.',
      );
    if (reference.kind === 'error' && !allowed.error)
      fail('{{ error }} is only available in on_failure inputs', 'Use it inside on_failure.input.');
    if (reference.kind === 'last-response' && !allowed.lastResponse) {
      fail('{{ last_response }} is not available here', 'Agent prompts may use variables only.');
    }
  }
}

const stepKind = (step: WorkflowStep): StepKind =>
  isSleepStep(step)
    ? 'sleep'
    : isParallelStep(step)
      ? 'parallel'
      : isMapStep(step)
        ? 'map'
        : isValidateStep(step)
          ? 'validate'
          : isGoalSeekStep(step)
            ? 'goal_seek'
            : isShellStep(step)
              ? 'shell'
              : 'agent';

/**
 * The checks that need the whole document: agent names used by steps exist, step ids are
 * unique (parallel groups' members included), templates refer to declared variables and
 * earlier steps (never to a step of the same parallel group). `variables` adds names given
 * on the command line.
 */
export function checkWorkflow(spec: WorkflowSpec, file: string | null, extraVariables: Iterable<string> = []): void {
  const agentNames = Object.keys(spec.agents);
  const variables = new Set([...Object.keys(spec.variables), ...extraVariables]);
  const tree = workflowStepTree(spec.steps);
  const byId = new Map<string, StepKind>();
  spec.steps.forEach((step, index) => {
    const ids = tree[index];
    if (!ids) return;
    byId.set(ids.id, stepKind(step));
    if (!isParallelStep(step)) return;
    for (const [at, member] of step.parallel.entries()) byId.set(ids.members?.[at] ?? '', stepKind(member));
  });
  const kinds = { byIndex: spec.steps.map(stepKind), byId };
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
  const idsBefore = new Set<string>();
  const check = (
    text: string,
    key: string,
    allowed: Omit<AllowedReferences, 'variables' | 'kinds' | 'idsBefore'> & {
      kinds?: AllowedReferences['kinds'];
      idsBefore?: ReadonlySet<string>;
    },
  ) => {
    const location = { file, key };
    checkReferences(templateReferences(text, location), location, { variables, kinds, idsBefore, ...allowed });
  };
  for (const [name, agent] of Object.entries(spec.agents)) {
    check(agent.prompt, `agents.${name}.prompt`, { stepsBefore: 0, error: false, lastResponse: false });
  }
  const explicitIds = new Map<string, string>();
  const claimId = (id: string | undefined, key: string) => {
    if (id === undefined) return;
    const first = explicitIds.get(id);
    if (first !== undefined) {
      throw new ConfigError({
        file,
        key: `${key}.id`,
        problem: `step id "${id}" is already used by ${first}`,
        fix: 'Give each step its own id (members of parallel groups too): the id is how a resume finds what the step already did.',
      });
    }
    explicitIds.set(id, key);
  };
  type Where = Omit<Parameters<typeof check>[2], 'error' | 'lastResponse' | 'stepsBefore'>;
  const checkLeaf = (step: WorkflowLeafStep, key: string, index: number, scope: Where = {}, claim = true) => {
    if (claim) claimId(step.id, key);
    const where = { stepsBefore: index, ...scope };
    if (isShellStep(step)) {
      check(step.shell, `${key}.shell`, { ...where, error: false, lastResponse: true });
      if (step.on_failure) {
        if (!spec.agents[step.on_failure.agent]) unknownAgent(step.on_failure.agent, `${key}.on_failure.agent`);
        check(step.on_failure.input, `${key}.on_failure.input`, { ...where, error: true, lastResponse: true });
      }
      return;
    }
    if (!spec.agents[step.agent]) unknownAgent(step.agent, `${key}.agent`);
    check(step.input, `${key}.input`, { ...where, error: false, lastResponse: true });
  };
  spec.steps.forEach((step, index) => {
    const ids = tree[index] as StepIds;
    if (isParallelStep(step)) {
      claimId(step.id, `steps[${index}]`);
      const members = ids.members ?? [];
      step.parallel.forEach((member, at) => {
        const own = members[at] ?? '';
        checkLeaf(member, `steps[${index}].parallel[${at}]`, index, {
          concurrent: new Set(members.filter((id) => id !== own)),
        });
      });
      idsBefore.add(ids.id);
      for (const id of members) idsBefore.add(id);
    } else if (isMapStep(step)) {
      claimId(step.id, `steps[${index}]`);
      checkMapStep(file, step, index, kinds, new Set(idsBefore), check, checkLeaf);
      idsBefore.add(ids.id);
    } else if (isValidateStep(step) || isGoalSeekStep(step)) {
      claimId(step.id, `steps[${index}]`);
      checkScoredStep(step, `steps[${index}]`, {
        check: (text, key, allowed) => check(text, key, { stepsBefore: index, ...allowed }),
        checkLeaf: (leaf, key, allowed) => checkLeaf(leaf, key, index, allowed, false),
        checkAgent: (name, key) => {
          if (!spec.agents[name]) unknownAgent(name, key);
        },
      });
      idsBefore.add(ids.id);
    } else if (isSleepStep(step)) {
      claimId(step.id, `steps[${index}]`);
      idsBefore.add(ids.id);
    } else {
      checkLeaf(step, `steps[${index}]`, index);
      idsBefore.add(ids.id);
    }
  });
  spec.outputs.artifacts.forEach((artifact, index) => {
    check(artifact.from, `outputs.artifacts[${index}].from`, {
      stepsBefore: spec.steps.length,
      error: false,
      lastResponse: true,
    });
  });
}

type TemplateCheck = (
  text: string,
  key: string,
  allowed: Omit<AllowedReferences, 'variables' | 'kinds' | 'idsBefore'> & {
    kinds?: AllowedReferences['kinds'];
    idsBefore?: ReadonlySet<string>;
  },
) => void;

/**
 * A map step: its items template, its do: steps (which also see the item and the item's
 * earlier do: steps by id), its per-item artifacts and its reduce: (which sees `map.*`).
 */
function checkMapStep(
  file: string | null,
  step: WorkflowMapStep,
  index: number,
  kinds: NonNullable<AllowedReferences['kinds']>,
  idsBefore: ReadonlySet<string>,
  check: TemplateCheck,
  checkLeaf: (
    step: WorkflowLeafStep,
    key: string,
    index: number,
    scope: Omit<Parameters<TemplateCheck>[2], 'error' | 'lastResponse' | 'stepsBefore'>,
    claim: boolean,
  ) => void,
): void {
  const key = `steps[${index}].map`;
  const { map } = step;
  if ('template' in map.items) {
    check(map.items.template, `${key}.items`, { stepsBefore: index, error: false, lastResponse: true });
  }
  // A map's do: steps have ids of their own (unique among them), seen only inside the item.
  const doIds = workflowStepIds(map.do);
  const seen = new Map<string, number>();
  const visible = new Set(idsBefore);
  const byId = new Map(kinds.byId);
  map.do.forEach((doStep, at) => {
    if (doStep.id !== undefined) {
      const first = seen.get(doStep.id);
      if (first !== undefined) {
        throw new ConfigError({
          file,
          key: `${key}.do[${at}].id`,
          problem: `step id "${doStep.id}" is already used by ${key}.do[${first}]`,
          fix: "Give each of the map's steps its own id: the id is how a resume finds what the step did for an item.",
        });
      }
      seen.set(doStep.id, at);
    }
    const scope = { item: true, idsBefore: new Set(visible), kinds: { byIndex: kinds.byIndex, byId: new Map(byId) } };
    checkLeaf(doStep, `${key}.do[${at}]`, index, scope, false);
    const id = doIds[at] ?? '';
    visible.add(id);
    byId.set(id, stepKind(doStep));
  });
  const itemScope = { item: true, idsBefore: visible, kinds: { byIndex: kinds.byIndex, byId } };
  map.artifacts.forEach((artifact, at) => {
    const where = { stepsBefore: index, error: false, lastResponse: true, ...itemScope };
    check(artifact.path, `${key}.artifacts[${at}].path`, where);
    check(artifact.from, `${key}.artifacts[${at}].from`, where);
  });
  if (map.reduce) checkLeaf(map.reduce, `${key}.reduce`, index, { map: true }, false);
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
  return overrideVariables(spec.variables, overrides, { file, what: 'workflow', declareIn: '' });
}
