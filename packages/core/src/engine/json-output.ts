// What a step's output becomes in the journal. A replayed step returns the recorded JSON, so
// the first run returns that same JSON too: `Jsonify<T>` says its type, and `toJournalJson`
// refuses values whose shape JSON would change without the type saying so (a Map becomes
// `{}`, NaN becomes null, a bigint cannot be written at all).
import type { JsonValue } from '../spec/index.js';

type JsonPrimitive = string | number | boolean | null;
// biome-ignore lint/suspicious/noExplicitAny: a function of any signature
type AnyFunction = (...args: any[]) => unknown;
/** Values JSON leaves out of objects (and turns into null in arrays). */
type Omitted = undefined | symbol | AnyFunction;
type Refused =
  | bigint
  | ReadonlyMap<unknown, unknown>
  | ReadonlySet<unknown>
  | WeakMap<object, unknown>
  | WeakSet<object>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type OmittedKeys<T> = {
  [K in keyof T]-?: [Exclude<T[K], undefined>] extends [never]
    ? K
    : Exclude<T[K], undefined> extends symbol | AnyFunction
      ? K
      : never;
}[keyof T];
type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];

type JsonifyObject<T> = Simplify<
  {
    [K in Exclude<keyof T, OmittedKeys<T> | OptionalKeys<T> | symbol>]: Jsonify<T[K]>;
  } & {
    [K in Exclude<OptionalKeys<T>, OmittedKeys<T> | symbol>]?: Jsonify<Exclude<T[K], undefined>>;
  }
>;

type JsonifyElement<E> = E extends Omitted ? null : Jsonify<E>;

/**
 * The type of `value` after a round trip through the journal's JSON: what `session.step`
 * returns, on the first run and on every replay. `Date` (and anything with `toJSON`) becomes
 * what `toJSON` returns; properties that are `undefined` or functions disappear (a property
 * that may be `undefined` becomes optional). `session.step` does not accept a `Map`, `Set` or
 * `bigint` output without a codec (`JsonStepFunction`); here they are `never`.
 */
export type Jsonify<T> = unknown extends T
  ? JsonValue
  : [T] extends [JsonValue]
    ? T
    : T extends { toJSON(...args: never[]): infer J }
      ? Jsonify<J>
      : T extends JsonPrimitive
        ? T
        : // biome-ignore lint/suspicious/noConfusingVoidType: a step function that returns nothing returns void
          T extends undefined | void
          ? undefined
          : T extends Refused | symbol | AnyFunction
            ? never
            : T extends readonly unknown[]
              ? { -readonly [K in keyof T]: JsonifyElement<T[K]> }
              : T extends object
                ? JsonifyObject<T>
                : never;

/** Levels of nesting `OutputProblem` looks into (a recursive type would otherwise never end). */
type Depth = [never, 0, 1, 2, 3, 4, 5, 6, 7, 8];

/**
 * Where and why a step output of type `T` cannot go through the journal's JSON as it is (never
 * when it can): the type-level twin of `toJournalJson`'s refusals. A function or symbol nested
 * in plain data is left out (as JSON does); an object with methods is taken for a class
 * instance, which the journal refuses.
 */
type OutputProblem<T, Path extends string, Level extends number> = [Level] extends [never]
  ? never
  : unknown extends T
    ? never
    : T extends { toJSON(...args: never[]): infer J }
      ? OutputProblem<J, Path, Level>
      : T extends JsonValue | undefined
        ? never
        : T extends bigint
          ? `${Path} is a bigint`
          : T extends ReadonlyMap<unknown, unknown> | WeakMap<object, unknown>
            ? `${Path} is a Map`
            : T extends ReadonlySet<unknown> | WeakSet<object>
              ? `${Path} is a Set`
              : T extends AnyFunction | symbol
                ? Path extends 'output'
                  ? `${Path} is a ${T extends symbol ? 'symbol' : 'function'}`
                  : never
                : T extends readonly unknown[]
                  ? OutputProblem<T[number], `${Path}[]`, Depth[Level]>
                  : T extends object
                    ? MethodsProblem<T, Path> | PropertyProblem<T, Path, Level>
                    : never;

type MethodsProblem<T, Path extends string> = {
  [K in keyof T]-?: T[K] extends AnyFunction ? K : never;
}[keyof T] extends never
  ? never
  : `${Path} has methods (a class instance)`;

type PropertyProblem<T, Path extends string, Level extends number> = {
  [K in keyof T & string]-?: OutputProblem<T[K], `${Path}.${K}`, Depth[Level]>;
}[keyof T & string];

/**
 * The step function's type as `session.step` takes it without a codec: the function itself
 * when its output survives the journal's JSON, else a type no function has, whose one property
 * names the problem and the fix (so the compiler's message says it).
 */
export type JsonStepFunction<T, F> = [OutputProblem<T, 'output', 9>] extends [never]
  ? F
  : F & { [Problem in `${OutputProblem<T, 'output', 9>}: give the step a codec ({ encode, decode })`]: never };

export interface JsonProblem {
  /** Where, e.g. `output.rows[3].when`. */
  path: string;
  problem: string;
}

const isPlainPrototype = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/**
 * The JSON the journal keeps for a step's output (a fresh copy), or the first place where
 * JSON would silently change the value's shape. `undefined` at the top means "no output".
 */
export function toJournalJson(value: unknown): { json: JsonValue | undefined } | { problem: JsonProblem } {
  const seen = new Set<object>();
  const found: { problem: JsonProblem | null } = { problem: null };

  const refuse = (path: string, text: string): undefined => {
    found.problem ??= { path, problem: text };
    return undefined;
  };

  const convert = (input: unknown, path: string, key: string): JsonValue | undefined => {
    let current = input;
    if (
      typeof current === 'object' &&
      current !== null &&
      typeof (current as { toJSON?: unknown }).toJSON === 'function'
    ) {
      current = (current as { toJSON(key: string): unknown }).toJSON(key);
    }
    switch (typeof current) {
      case 'string':
      case 'boolean':
        return current;
      case 'number':
        return Number.isFinite(current) ? current : refuse(path, `is ${current}, which JSON records as null`);
      case 'bigint':
        return refuse(path, 'is a bigint, which JSON cannot record');
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
      default:
        break;
    }
    if (current === null) return null;
    const object = current as object;
    if (seen.has(object)) return refuse(path, 'refers back to itself (a cycle)');
    if (Array.isArray(object)) {
      seen.add(object);
      const result: JsonValue[] = [];
      for (let index = 0; index < object.length; index += 1) {
        const element = convert(object[index], `${path}[${index}]`, String(index));
        if (found.problem) return undefined;
        result.push(element === undefined ? null : element);
      }
      seen.delete(object);
      return result;
    }
    if (!isPlainPrototype(object)) {
      const kind = object.constructor?.name ?? 'object';
      return refuse(
        path,
        `is a ${kind}, which JSON records as a plain object (its contents or its class would be lost)`,
      );
    }
    seen.add(object);
    const result: Record<string, JsonValue> = {};
    for (const [name, entry] of Object.entries(object)) {
      const converted = convert(entry, `${path}.${name}`, name);
      if (found.problem) return undefined;
      if (converted !== undefined) result[name] = converted;
    }
    seen.delete(object);
    return result;
  };

  if (typeof value === 'function' || typeof value === 'symbol') {
    return { problem: { path: 'output', problem: `is a ${typeof value}, which JSON cannot record` } };
  }
  const json = convert(value, 'output', '');
  return found.problem ? { problem: found.problem } : { json };
}
