// `{{ ... }}` templating for workflow specs and prompt files. Deliberately tiny: a
// reference is a variable name, `steps[N].response` (`.exit_code`, `.skipped`), a step by id
// `steps.<id>.output` (`.response`, `.exit_code`, `.skipped`), `last_response` or `error`, and in
// map steps `item` (`item.field`), `item_id`, `item_index` and `map.results` (`.completed`,
// `.failed`, `.total`), `validation.*` in a validate step's fixer and `goal.*` in a goal_seek
// step; anything else is an error found before the run starts, never an empty
// string at run time.
import { ConfigError, type JsonValue } from '@resume/core/spec';

const placeholderPattern = /\{\{\s*([^}]*?)\s*\}\}/g;
const stepReferencePattern = /^steps\[(\d+)\]\.(response|exit_code|skipped)$/;
const stepIdReferencePattern = /^steps\.([A-Za-z0-9][A-Za-z0-9_.~-]*)\.(output|response|exit_code|skipped)$/;
const itemReferencePattern = /^item((?:\.[A-Za-z0-9_-]+)*)$/;
const mapReferencePattern = /^map\.(results|completed|failed|total)$/;
const validationReferencePattern = /^validation\.(completion|missing|output|attempt)$/;
const goalReferencePattern = /^goal\.(attempt|output|previous_output|previous_score)$/;
const namePattern = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export type TemplateReference =
  | { kind: 'variable'; name: string }
  | { kind: 'step'; index: number; field: StepField }
  /** A step by its id; `output` is its `response`. */
  | { kind: 'step-id'; id: string; field: StepField }
  | { kind: 'last-response' }
  | { kind: 'error' }
  | { kind: 'item'; path: string[] }
  | { kind: 'item-id' }
  | { kind: 'item-index' }
  | { kind: 'map'; field: MapField }
  | { kind: 'validation'; field: ValidationField }
  | { kind: 'goal'; field: GoalField };

/** What a validate step's `on_incomplete` reads of the check that found the work incomplete. */
export type ValidationField = 'completion' | 'missing' | 'output' | 'attempt';
/** What a goal_seek step's templates read of the loop: `output` is the attempt being scored. */
export type GoalField = 'attempt' | 'output' | 'previous_output' | 'previous_score';

/** What a map's `reduce:` step may read of the items' results. */
export type MapField = 'results' | 'completed' | 'failed' | 'total';

/** The work item a map step's `do:` steps run for. */
export interface TemplateItem {
  value: JsonValue;
  id: string;
  /** 0-based position in the item list. */
  index: number;
}

/** What a template may read of an earlier step. */
export type StepField = 'response' | 'exit_code' | 'skipped';

/** What a step left for later templates. */
export interface StepResult {
  /** The agent's answer, or a shell step's stdout tail (null: no output). */
  response: string | null;
  /** A shell step's exit code; null when it was skipped (whether it ran is unknown). Agent steps: undefined. */
  exitCode?: number | null;
  /** True for a shell step whose uncertain run was skipped on resume (`--on-uncertain skip`). */
  skipped?: boolean;
  /** A parallel group: no output of its own (its steps have theirs). */
  group?: boolean;
  /** What `{{ last_response }}` reads after the step when it is not `response` (a map step: its agent reduce's answer). */
  lastResponse?: string;
}

export interface TemplateScope {
  variables: Record<string, string>;
  /** The steps run so far, by position (`steps[0]` is the first). */
  steps?: Array<StepResult | undefined>;
  /** The steps run so far by id (members of parallel groups too). */
  stepsById?: ReadonlyMap<string, StepResult>;
  lastResponse?: string | null;
  error?: string | null;
  /** Inside a map step's `do:`: the item. */
  item?: TemplateItem;
  /** In a map step's `reduce:`: every item's result. */
  map?: { results: string; completed: number; failed: number; total: number };
  /** In a validate step's `on_incomplete`: the last check's result. */
  validation?: Record<ValidationField, string>;
  /** In a goal_seek step: the attempt and the previous one's result (empty on the first attempt). */
  goal?: Record<GoalField, string>;
}

/** Where a template sits, for error messages. */
export interface TemplateLocation {
  file: string | null;
  key: string;
}

export function parseReference(expression: string, location: TemplateLocation): TemplateReference {
  if (expression === 'last_response') return { kind: 'last-response' };
  if (expression === 'error') return { kind: 'error' };
  if (expression === 'item_id') return { kind: 'item-id' };
  if (expression === 'item_index') return { kind: 'item-index' };
  const step = stepReferencePattern.exec(expression);
  if (step) return { kind: 'step', index: Number(step[1]), field: step[2] as StepField };
  const byId = stepIdReferencePattern.exec(expression);
  if (byId) {
    const field = byId[2] === 'output' ? 'response' : (byId[2] as StepField);
    return { kind: 'step-id', id: byId[1] ?? '', field };
  }
  const item = itemReferencePattern.exec(expression);
  if (item) return { kind: 'item', path: (item[1] ?? '').split('.').filter((part) => part !== '') };
  const map = mapReferencePattern.exec(expression);
  if (map) return { kind: 'map', field: map[1] as MapField };
  const validation = validationReferencePattern.exec(expression);
  if (validation) return { kind: 'validation', field: validation[1] as ValidationField };
  const goal = goalReferencePattern.exec(expression);
  if (goal) return { kind: 'goal', field: goal[1] as GoalField };
  if (namePattern.test(expression)) return { kind: 'variable', name: expression };
  throw new ConfigError({
    file: location.file,
    key: location.key,
    problem: `"{{ ${expression} }}" is not a template reference`,
    fix: 'Use a variable name ({{ topic }}), {{ steps[0].response }} or {{ steps.<id>.output }} (or .exit_code, .skipped), {{ last_response }}, {{ error }}, and in map steps {{ item }}, {{ item.field }}, {{ item_id }}, {{ item_index }} or {{ map.results }}, in validate steps {{ validation.missing }} (.completion, .output, .attempt), in goal_seek steps {{ goal.previous_score }} (.previous_output, .attempt, .output).',
  });
}

/** Every reference a template makes, in order of appearance. */
export function templateReferences(template: string, location: TemplateLocation): TemplateReference[] {
  return [...template.matchAll(placeholderPattern)].map((match) => parseReference(match[1] ?? '', location));
}

function describe(reference: TemplateReference): string {
  switch (reference.kind) {
    case 'variable':
      return reference.name;
    case 'step':
      return `steps[${reference.index}].${reference.field}`;
    case 'step-id':
      return `steps.${reference.id}.${reference.field === 'response' ? 'output' : reference.field}`;
    case 'last-response':
      return 'last_response';
    case 'error':
      return 'error';
    case 'item':
      return ['item', ...reference.path].join('.');
    case 'item-id':
      return 'item_id';
    case 'item-index':
      return 'item_index';
    case 'map':
      return `map.${reference.field}`;
    case 'validation':
      return `validation.${reference.field}`;
    case 'goal':
      return `goal.${reference.field}`;
  }
}

/** How an item's value reads in a template or an environment variable: text as it is, anything else as JSON. */
export function itemText(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function resolve(reference: TemplateReference, scope: TemplateScope, location: TemplateLocation): string {
  const missing = (problem: string, fix: string): never => {
    throw new ConfigError({ file: location.file, key: location.key, problem, fix });
  };
  switch (reference.kind) {
    case 'variable': {
      const value = scope.variables[reference.name];
      return (
        value ??
        missing(
          `unknown variable "${reference.name}"`,
          `Declare it under variables: or pass --var ${reference.name}=...`,
        )
      );
    }
    case 'step':
    case 'step-id': {
      const step = reference.kind === 'step' ? scope.steps?.[reference.index] : scope.stepsById?.get(reference.id);
      if (!step)
        return missing(
          `{{ ${describe(reference)} }} refers to a step that has not run before this one`,
          'Refer only to earlier steps (templates index steps from 0: steps[0] is step 1).',
        );
      if (step.group) {
        return missing(
          `{{ ${describe(reference)} }} refers to a parallel group, which has no output of its own`,
          'Refer to one of its steps by id, e.g. {{ steps.<id>.output }}.',
        );
      }
      if (reference.field === 'response') return step.response ?? '';
      if (reference.field === 'skipped') return String(step.skipped === true);
      if (step.exitCode === undefined) {
        return missing(
          `{{ ${describe(reference)} }} refers to an agent step`,
          'exit_code exists for shell steps only; use response for an agent step.',
        );
      }
      // Empty for a skipped step: nothing is known of its command's exit.
      return step.exitCode === null ? '' : String(step.exitCode);
    }
    case 'last-response':
      return scope.lastResponse ?? '';
    case 'error':
      return scope.error ?? missing('{{ error }} is only available in on_failure', 'Move it into an on_failure input.');
    case 'item': {
      const item =
        scope.item ?? missing('{{ item }} exists only in the do: steps of a map step', 'Move it into map.do.');
      let value: JsonValue | undefined = item.value;
      for (const [depth, field] of reference.path.entries()) {
        if (typeof value !== 'object' || value === null || Array.isArray(value) || !(field in value)) {
          return missing(
            `item "${item.id}" has no field "${reference.path.slice(0, depth + 1).join('.')}" for {{ ${describe(reference)} }}`,
            'Give every item that field, or use {{ item }} for the whole item.',
          );
        }
        value = value[field];
      }
      return itemText(value);
    }
    case 'item-id':
      return scope.item?.id ?? missing('{{ item_id }} exists only in map steps', 'Move it into map.do.');
    case 'item-index':
      return scope.item
        ? String(scope.item.index)
        : missing('{{ item_index }} exists only in map steps', 'Move it into map.do.');
    case 'map': {
      const map =
        scope.map ?? missing(`{{ ${describe(reference)} }} exists only in map.reduce`, 'Move it into map.reduce.');
      return reference.field === 'results' ? map.results : String(map[reference.field]);
    }
    case 'validation':
      return (
        scope.validation?.[reference.field] ??
        missing(`{{ ${describe(reference)} }} exists only in validate.on_incomplete`, 'Move it into on_incomplete.')
      );
    case 'goal':
      return (
        scope.goal?.[reference.field] ??
        missing(`{{ ${describe(reference)} }} exists only in a goal_seek step`, 'Move it into goal_seek.')
      );
  }
}

/** Replaces every `{{ reference }}`; throws ConfigError naming the location on an unknown one. */
export function renderTemplate(template: string, scope: TemplateScope, location: TemplateLocation): string {
  return template.replace(placeholderPattern, (_whole, expression: string) =>
    resolve(parseReference(expression, location), scope, location),
  );
}

export { describe as describeReference };

/**
 * A file's declared variables overridden by `--var k=v`; a value for a variable the file does
 * not declare is an error (a typo would otherwise be ignored without a word).
 */
export function overrideVariables(
  declared: Record<string, string>,
  overrides: Record<string, string>,
  where: { file: string | null; what: string; declareIn: string },
): Record<string, string> {
  for (const name of Object.keys(overrides)) {
    if (!(name in declared)) {
      throw new ConfigError({
        file: where.file,
        key: 'variables',
        problem: `a value is given for the variable "${name}", which the ${where.what} does not declare`,
        fix: `Declare it under variables:${where.declareIn} or use one of: ${Object.keys(declared).join(', ') || '(none declared)'}.`,
      });
    }
  }
  return { ...declared, ...overrides };
}
