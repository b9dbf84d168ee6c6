// A parser compiled from a zod schema, for the journal's hot paths: an event is validated
// once per checkpoint as it is written and once per record as a journal is read back, and
// zod's general parser costs several times what the checks themselves do. The zod schema
// stays the contract: `compileFastParse(schema)` walks the schema's own definition (no
// second copy of it to keep in step) and returns a parser that answers either with exactly
// what zod's `parse` would return (the same values, defaults filled in, unknown keys
// dropped, members in the same order) or with NOT_PROVEN, for anything it cannot vouch for
// (an invalid value, an unusual one such as a class instance or a key set to undefined);
// the caller then asks zod, which parses it or reports the problem as it always did. A
// construct the compiler does not know makes it return null: that schema is always parsed by
// zod. `fast-parse.test.ts` checks the agreement on generated values.
import type { z } from 'zod';

/** What a fast parser answers when zod must decide (the value is invalid, or unusual). */
export const NOT_PROVEN: unique symbol = Symbol('not proven');
export type FastParse<T> = (value: unknown) => T | typeof NOT_PROVEN;

/**
 * A fast parser `fastParseSource` wrote out (a `.generated.ts` module, untyped): it answers what
 * its schema's parse returns or NOT_PROVEN, which the test that keeps the module in step checks.
 */
export type WrittenFastParse = (value: unknown) => unknown;

/** The parts of a zod schema's internals the compilers read (zod 4's `_zod`). */
export interface ZodSchemaInternals {
  def: {
    type: string;
    checks?: ZodCheckLike[];
    coerce?: boolean;
    shape?: Record<string, ZodSchemaLike>;
    catchall?: ZodSchemaLike;
    element?: ZodSchemaLike;
    innerType?: ZodSchemaLike;
    keyType?: ZodSchemaLike;
    valueType?: ZodSchemaLike;
    options?: ZodSchemaLike[];
    discriminator?: string;
    unionFallback?: boolean;
    mode?: string;
    getter?: () => ZodSchemaLike;
    defaultValue?: unknown;
  };
  values?: ReadonlySet<unknown>;
  optin?: string;
  optout?: string;
}
export interface ZodSchemaLike {
  _zod: ZodSchemaInternals;
}
/** The parts of a zod check's definition the compilers read. */
export interface ZodCheckLike {
  _zod: {
    def: {
      check?: string;
      format?: string;
      pattern?: RegExp;
      value?: unknown;
      inclusive?: boolean;
      minimum?: unknown;
      maximum?: unknown;
      length?: unknown;
    };
  };
}

type Parser = (value: unknown) => unknown;
type Check = (value: unknown) => boolean;
/** The kinds of JavaScript value a schema can accept, so a union can pick its one candidate option. */
export type Kind = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object';

/** Thrown inside the compilers (this one and `fastParseSource`) for a construct they do not handle; never escapes. */
export class Unsupported extends Error {}

const FAIL = NOT_PROVEN;

/** The fast parser for `schema`, or null when the schema uses something it does not handle. */
export function compileFastParse<Schema extends z.ZodType>(schema: Schema): FastParse<z.output<Schema>> | null {
  try {
    return compile(schema as unknown as ZodSchemaLike, new Map()) as FastParse<z.output<Schema>>;
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
}

/**
 * `schema.parse` with the fast parser in front: zod parses only what the fast parser cannot
 * vouch for, so invalid input fails exactly as before (a ZodError). Compiled on first use, or
 * `written` when given: the same parser written out by `fastParseSource` (a `.generated.ts`
 * module, kept in step by a test), so a value it vouches for never builds `schema` at all.
 */
export function fastParser<Schema extends z.ZodType>(
  schema: Schema,
  written?: WrittenFastParse,
): (value: unknown) => z.output<Schema> {
  let fast = written as FastParse<z.output<Schema>> | null | undefined;
  return (value) => {
    if (fast === undefined) fast = compileFastParse(schema);
    const parsed = fast ? fast(value) : FAIL;
    return parsed === FAIL ? schema.parse(value) : (parsed as z.output<Schema>);
  };
}

/** `schema.safeParse` the same way. */
export function fastSafeParser<Schema extends z.ZodType>(
  schema: Schema,
  written?: WrittenFastParse,
): (value: unknown) => { success: true; data: z.output<Schema> } | { success: false; error: z.ZodError<unknown> } {
  let fast = written as FastParse<z.output<Schema>> | null | undefined;
  return (value) => {
    if (fast === undefined) fast = compileFastParse(schema);
    const parsed = fast ? fast(value) : FAIL;
    if (parsed !== FAIL) return { success: true, data: parsed as z.output<Schema> };
    const result = schema.safeParse(value);
    return result.success ? { success: true, data: result.data } : { success: false, error: result.error };
  };
}

function compile(schema: ZodSchemaLike, compiled: Map<ZodSchemaInternals, Parser>): Parser {
  const internals = schema._zod;
  const known = compiled.get(internals);
  if (known) return known;
  // A recursive schema (through z.lazy) reaches itself while compiling: it gets this forwarder.
  let parser: Parser | undefined;
  compiled.set(internals, (value) => (parser as Parser)(value));
  parser = compileNew(internals, compiled);
  compiled.set(internals, parser);
  return parser;
}

function compileNew(internals: ZodSchemaInternals, compiled: Map<ZodSchemaInternals, Parser>): Parser {
  const definition = internals.def;
  if (definition.coerce) throw new Unsupported('coercion');
  const check = leafCheck(internals);
  if (check) return (value) => (check(value) ? value : FAIL);
  switch (definition.type) {
    case 'nullable': {
      noChecks(definition);
      const inner = compile(required(definition.innerType), compiled);
      return (value) => (value === null ? null : inner(value));
    }
    case 'optional': {
      noChecks(definition);
      const inner = compile(required(definition.innerType), compiled);
      return (value) => (value === undefined ? undefined : inner(value));
    }
    case 'default': {
      noChecks(definition);
      const innerType = required(definition.innerType);
      const inner = compile(innerType, compiled);
      // Only defaults that are plain values (zod hands out the same value each time).
      const fallback = definition.defaultValue;
      if (fallback !== null && typeof fallback === 'object') throw new Unsupported('object default');
      return (value) => {
        if (value === undefined) return fallback;
        const parsed = inner(value);
        return parsed === undefined ? fallback : parsed;
      };
    }
    case 'lazy': {
      noChecks(definition);
      const getter = definition.getter;
      if (!getter) throw new Unsupported('lazy without getter');
      return compile(getter(), compiled);
    }
    case 'array':
      return compileArray(definition, compiled);
    case 'object':
      return compileObject(definition, compiled);
    case 'record':
      return compileRecord(definition, compiled);
    case 'union':
      return compileUnion(definition, compiled);
    default:
      throw new Unsupported(definition.type);
  }
}

function compileArray(definition: ZodSchemaInternals['def'], compiled: Map<ZodSchemaInternals, Parser>): Parser {
  const element = compile(required(definition.element), compiled);
  const checks = compileChecks(definition.checks, 'array');
  return (value) => {
    if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return FAIL;
    // Extra properties on an array (JSON never has them; memory may) and holes go to zod.
    if (Object.keys(value).length !== value.length) return FAIL;
    const output: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      if (item === undefined) return FAIL;
      const parsed = element(item);
      if (parsed === FAIL || parsed === undefined) return FAIL;
      output[index] = parsed;
    }
    return checks && !checks(output) ? FAIL : output;
  };
}

interface Field {
  key: string;
  parse: Parser;
  /** `optional`: an absent key stays absent; `defaulted`: it gets the default; `required`: it must be there. */
  absent: 'optional' | 'defaulted' | 'required';
}

function compileObject(definition: ZodSchemaInternals['def'], compiled: Map<ZodSchemaInternals, Parser>): Parser {
  // Unknown keys are dropped (no catchall): only the shape's keys are read, as zod does.
  if (definition.catchall !== undefined) throw new Unsupported('catchall');
  noChecks(definition);
  const shape = definition.shape ?? {};
  if (Object.getOwnPropertySymbols(shape).length > 0) throw new Unsupported('symbol keys');
  const fields: Field[] = Object.entries(shape).map(([key, field]) => {
    if (key === '__proto__') throw new Unsupported('__proto__ key');
    const type = field._zod.def.type;
    const absent = type === 'optional' ? 'optional' : type === 'default' ? 'defaulted' : 'required';
    if (absent === 'required' && field._zod.optin !== undefined) throw new Unsupported(`optional ${type}`);
    return { key, parse: compile(field, compiled), absent };
  });
  // Index loops rather than iterators and callbacks: this runs for every event written and read.
  return (value) => {
    if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return FAIL;
    const record = value as Record<string, unknown>;
    const output: Record<string, unknown> = {};
    for (let index = 0; index < fields.length; index += 1) {
      const field = fields[index] as Field;
      const item = record[field.key];
      if (item === undefined) {
        // A key set to undefined, or inherited, is left to zod.
        if (field.key in record) return FAIL;
        if (field.absent === 'required') return FAIL;
        if (field.absent === 'optional') continue;
      }
      const parsed = field.parse(item);
      if (parsed === FAIL) return FAIL;
      output[field.key] = parsed;
    }
    return output;
  };
}

function compileRecord(definition: ZodSchemaInternals['def'], compiled: Map<ZodSchemaInternals, Parser>): Parser {
  noChecks(definition);
  const keyType = required(definition.keyType)._zod.def;
  // Only string keys without checks: every own enumerable string key is kept as it is.
  if (keyType.type !== 'string' || (keyType.checks?.length ?? 0) > 0 || keyType.coerce) {
    throw new Unsupported('record keys');
  }
  if (definition.mode === 'loose') throw new Unsupported('loose record');
  const element = compile(required(definition.valueType), compiled);
  return (value) => {
    if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return FAIL;
    if (Object.getOwnPropertySymbols(value).length > 0) return FAIL;
    const record = value as Record<string, unknown>;
    const output: Record<string, unknown> = {};
    const keys = Object.keys(record);
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index] as string;
      if (key === '__proto__') return FAIL;
      const item = record[key];
      if (item === undefined) return FAIL;
      const parsed = element(item);
      if (parsed === FAIL || parsed === undefined) return FAIL;
      output[key] = parsed;
    }
    return output;
  };
}

function compileUnion(definition: ZodSchemaInternals['def'], compiled: Map<ZodSchemaInternals, Parser>): Parser {
  noChecks(definition);
  const options = definition.options ?? [];
  if (definition.discriminator !== undefined) return compileDiscriminated(definition, options, compiled);
  // zod takes the first option that accepts a value; with options that accept disjoint kinds of
  // value, at most one can, and it is the one for the value's kind.
  const byKind = new Map<Kind | 'other', Parser>();
  for (const option of options) {
    const parse = compile(option, compiled);
    for (const kind of kindsOf(option, 0)) {
      if (byKind.has(kind)) throw new Unsupported('overlapping union options');
      byKind.set(kind, parse);
    }
  }
  return (value) => {
    const parse = byKind.get(kindOf(value));
    return parse ? parse(value) : FAIL;
  };
}

function compileDiscriminated(
  definition: ZodSchemaInternals['def'],
  options: ZodSchemaLike[],
  compiled: Map<ZodSchemaInternals, Parser>,
): Parser {
  const discriminator = definition.discriminator as string;
  const byTag = new Map<unknown, Parser>();
  for (const option of options) {
    const tag = option._zod.def.shape?.[discriminator];
    const values = tag?._zod.def.type === 'literal' || tag?._zod.def.type === 'enum' ? tag._zod.values : undefined;
    if (option._zod.def.type !== 'object' || !values) throw new Unsupported('discriminated option');
    const parse = compile(option, compiled);
    for (const value of values) {
      if (byTag.has(value)) throw new Unsupported('duplicate discriminator');
      byTag.set(value, parse);
    }
  }
  return (value) => {
    if (typeof value !== 'object' || value === null) return FAIL;
    const parse = byTag.get((value as Record<string, unknown>)[discriminator]);
    return parse ? parse(value) : FAIL;
  };
}

function kindOf(value: unknown): Kind | 'other' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'object' ? type : 'other';
}

/** The kinds of value `schema` can accept (for union options only); shared with `fastParseSource`. */
export function kindsOf(schema: ZodSchemaLike, depth: number): Kind[] {
  if (depth > 8) throw new Unsupported('deep union option');
  const definition = schema._zod.def;
  switch (definition.type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
    case 'array':
    case 'object':
      return [definition.type];
    case 'record':
      return ['object'];
    case 'enum':
    case 'literal': {
      const kinds = new Set<Kind>();
      for (const value of schema._zod.values ?? []) {
        const kind = kindOf(value);
        if (kind === 'other') throw new Unsupported('literal kind');
        kinds.add(kind as Kind);
      }
      return [...kinds];
    }
    case 'nullable':
      return [...new Set<Kind>(['null', ...kindsOf(required(definition.innerType), depth + 1)])];
    case 'lazy':
      if (!definition.getter) throw new Unsupported('lazy without getter');
      return kindsOf(definition.getter(), depth + 1);
    default:
      // optional, default and the rest accept undefined or transform: not in a fast union.
      throw new Unsupported(`union option ${definition.type}`);
  }
}

/** The check of a schema whose values are taken as they are (a string, a number, an enum...); null for others. */
function leafCheck(internals: ZodSchemaInternals): Check | null {
  const definition = internals.def;
  let base: Check;
  switch (definition.type) {
    case 'string':
      base = (value) => typeof value === 'string';
      break;
    case 'number':
      // zod refuses NaN and the infinities as numbers.
      base = (value) => typeof value === 'number' && Number.isFinite(value);
      break;
    case 'boolean':
      base = (value) => typeof value === 'boolean';
      break;
    case 'null':
      base = (value) => value === null;
      break;
    case 'enum':
    case 'literal': {
      const values = internals.values;
      if (!values) throw new Unsupported(definition.type);
      base = (value) => values.has(value);
      break;
    }
    default:
      return null;
  }
  const checks = compileChecks(definition.checks, definition.type);
  return checks ? (value) => base(value) && checks(value) : base;
}

/**
 * For a schema whose values zod returns as they are (a string, a number, a boolean, null, an
 * enum or a literal, with the usual checks): a predicate that is true exactly when zod accepts a
 * value. Null for any other schema; `unsupported` for a check it does not know. Shared with the
 * listing index's exact check.
 */
export function compileLeafCheck(schema: unknown): ((value: unknown) => boolean) | null | 'unsupported' {
  try {
    const internals = (schema as ZodSchemaLike)._zod;
    if (internals.def.coerce) return 'unsupported';
    return leafCheck(internals);
  } catch (error) {
    if (error instanceof Unsupported) return 'unsupported';
    throw error;
  }
}

function noChecks(definition: ZodSchemaInternals['def']): void {
  if ((definition.checks?.length ?? 0) > 0) throw new Unsupported(`checks on ${definition.type}`);
}

function compileChecks(checks: ZodCheckLike[] | undefined, type: string): Check | null {
  if (!checks || checks.length === 0) return null;
  const compiled = checks.map((check) => compileCheck(check, type));
  if (compiled.length === 1) return compiled[0] as Check;
  return (value) => {
    for (let index = 0; index < compiled.length; index += 1) if (!(compiled[index] as Check)(value)) return false;
    return true;
  };
}

/** One of zod's value checks on a value known to be of `type` (an array's length...); null for one it does not know. */
export function compileZodCheck(check: unknown, type: string): ((value: unknown) => boolean) | null {
  try {
    return compileCheck(check as ZodCheckLike, type);
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
}

function compileCheck(check: ZodCheckLike, type: string): Check {
  const definition = check._zod.def;
  // A check's `when` can only skip it; running it regardless can only send more values to zod.
  switch (definition.check) {
    case 'string_format': {
      const pattern = definition.pattern;
      if (type !== 'string' || definition.format !== 'regex' || !(pattern instanceof RegExp))
        throw new Unsupported(`string format ${definition.format}`);
      return (value) => {
        pattern.lastIndex = 0;
        return pattern.test(value as string);
      };
    }
    case 'number_format':
      if (type !== 'number' || definition.format !== 'safeint')
        throw new Unsupported(`number format ${definition.format}`);
      return (value) => Number.isSafeInteger(value);
    case 'greater_than':
    case 'less_than': {
      const bound = definition.value;
      if (type !== 'number' || typeof bound !== 'number') throw new Unsupported(definition.check);
      const inclusive = definition.inclusive === true;
      return definition.check === 'greater_than'
        ? (value) => (inclusive ? (value as number) >= bound : (value as number) > bound)
        : (value) => (inclusive ? (value as number) <= bound : (value as number) < bound);
    }
    case 'min_length':
    case 'max_length':
    case 'length_equals': {
      const limit =
        definition.check === 'length_equals' ? definition.length : (definition.minimum ?? definition.maximum);
      if ((type !== 'string' && type !== 'array') || typeof limit !== 'number') throw new Unsupported(definition.check);
      if (definition.check === 'min_length') return (value) => (value as { length: number }).length >= limit;
      if (definition.check === 'max_length') return (value) => (value as { length: number }).length <= limit;
      return (value) => (value as { length: number }).length === limit;
    }
    default:
      throw new Unsupported(`check ${definition.check}`);
  }
}

function required(schema: ZodSchemaLike | undefined): ZodSchemaLike {
  if (!schema) throw new Unsupported('missing inner schema');
  return schema;
}
