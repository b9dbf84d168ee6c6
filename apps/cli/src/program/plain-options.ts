// Command-line options checked without building their zod schema. Every command validates its
// options with a schema, and building one costs more than the check itself: a few milliseconds
// of a command's start, for values that are nearly always plain (each option absent, or of the
// type commander gives it). `plainOptions` answers for those: exactly what the schema's parse
// returns (the same values, defaults filled in, unknown keys dropped), or `undefined` for
// anything else, and then the schema, built at that moment, parses the options or reports the
// problem as it always did. Each option's check answers the schema's value, or NOT_PROVEN.
// Each module keeps its plain shape next to its schema, and a test checks the two agree on
// generated values (`plain-options.test.ts`).

/** What an option's check answers when the schema must decide. */
const NOT_PROVEN: unique symbol = Symbol('not proven');

/** One option's value as the schema's parse returns it, or NOT_PROVEN (the schema decides). */
export type PlainCheck = (value: unknown) => unknown;

/** An options schema's plain shape: each option's check (in the schema's order) and the schema's `.default(...)`s. */
export interface PlainShape {
  shape: Readonly<Record<string, PlainCheck>>;
  defaults?: Readonly<Record<string, unknown>>;
}

/** The checks for an option's value as commander gives it, each agreeing with the schema named. */
export const plain = {
  /** `z.string()` */
  text: (value: unknown) => (typeof value === 'string' ? value : NOT_PROVEN),
  /** `z.string().min(1)` */
  nonEmptyText: (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : NOT_PROVEN),
  /** `z.boolean()` */
  switch: (value: unknown) => (typeof value === 'boolean' ? value : NOT_PROVEN),
  /** `z.union([z.string(), z.boolean()])`: an option with an optional value (`--resume [id]`) */
  textOrSwitch: (value: unknown) => (typeof value === 'string' || typeof value === 'boolean' ? value : NOT_PROVEN),
  /** `z.array(z.string())`: a repeated option */
  texts: (value: unknown) =>
    Array.isArray(value) &&
    Object.getPrototypeOf(value) === Array.prototype &&
    value.every((item) => typeof item === 'string')
      ? [...value]
      : NOT_PROVEN,
  /** `z.coerce.number().int().positive()` of the text commander gives */
  count: (value: unknown) => {
    if (typeof value !== 'string') return NOT_PROVEN;
    const number = Number(value);
    return Number.isSafeInteger(number) && number > 0 ? number : NOT_PROVEN;
  },
  /** `z.enum(values)` */
  choice:
    (values: readonly string[]) =>
    (value: unknown): unknown =>
      typeof value === 'string' && values.includes(value) ? value : NOT_PROVEN,
  /** `z.string().refine(accepts)` */
  textWhere:
    (accepts: (value: string) => boolean) =>
    (value: unknown): unknown =>
      typeof value === 'string' && accepts(value) ? value : NOT_PROVEN,
  /** `z.string().transform(convert)` */
  textThen:
    (convert: (value: string) => unknown) =>
    (value: unknown): unknown =>
      typeof value === 'string' ? convert(value) : NOT_PROVEN,
};

/** What `z.object(...)` of these options returns for `raw`, or undefined when its schema must decide. */
export function plainOptions<Output>(raw: unknown, { shape, defaults = {} }: PlainShape): Output | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const prototype = Object.getPrototypeOf(raw);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const values = raw as Record<string, unknown>;
  const output: Record<string, unknown> = {};
  for (const key in shape) {
    const value = values[key];
    if (value === undefined) {
      if (Object.hasOwn(defaults, key)) {
        // zod gives each parse its own copy of a default list.
        const fallback = defaults[key];
        output[key] = Array.isArray(fallback) ? [...fallback] : fallback;
      } else if (key in values) output[key] = undefined;
      continue;
    }
    const parsed = (shape[key] as PlainCheck)(value);
    if (parsed === NOT_PROVEN) return undefined;
    output[key] = parsed;
  }
  return output as Output;
}
