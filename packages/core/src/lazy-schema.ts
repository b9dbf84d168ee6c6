// Schemas built on first use. Building a zod schema costs time when its module loads
// (every method and check is set up per schema), and a command such as `sessions list`
// never parses a journal event or a config file: it should not pay for their schemas.
// `lazySchema(build)` returns a stand-in with the built schema's exact type that builds it
// the first time anything reads from it, so exported names, types and validation stay
// the same for every caller; only the moment the schema is built moves.
// `checkedSafeParser(schema, check)` puts the check generated from a schema in front of it, so
// a valid value builds no schema at all.
import type { z } from 'zod';

/**
 * A stand-in for `build()`'s result, built on first property access and then shared.
 * Methods are read from the built schema itself (zod binds them there), so
 * `lazySchema(build).parse` is the built schema's own `parse`.
 */
export function lazySchema<Schema extends object>(build: () => Schema): Schema {
  let built: Schema | undefined;
  const target = (): Schema => {
    built ??= build();
    return built;
  };
  // The proxy's own target is an empty placeholder: every trap answers from the built schema.
  return new Proxy({} as Schema, {
    get: (_placeholder, key) => Reflect.get(target(), key, target()),
    set: (_placeholder, key, value) => Reflect.set(target(), key, value, target()),
    has: (_placeholder, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_placeholder, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      // A proxy may not report a property as non-configurable unless its placeholder has it too.
      return descriptor ? { ...descriptor, configurable: true } : undefined;
    },
    defineProperty: (_placeholder, key, descriptor) => Reflect.defineProperty(target(), key, descriptor),
    deleteProperty: (_placeholder, key) => Reflect.deleteProperty(target(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
}

/** Runs `build` once, on the first call, and returns its result from then on. */
export function once<Value>(build: () => Value): () => Value {
  let built: { value: Value } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/** What a generated check answers: the parsed value, or undefined when zod must decide. */
export type GeneratedCheck = (value: unknown) => unknown;

/**
 * zod's `safeParse` with the check generated from the same schema in front (the
 * `*-check.generated.js` modules, scripts/generate-checks.mjs): a value the check accepts is what
 * zod would return, so it is taken as it is and the schema is never built; anything else
 * (invalid, or unusual) is zod's to parse or to report.
 */
export function checkedSafeParser<Schema extends z.ZodType>(
  schema: Schema,
  check: GeneratedCheck,
): (value: unknown) => { success: true; data: z.output<Schema> } | { success: false; error: z.ZodError<unknown> } {
  return (value) => {
    const checked = check(value);
    if (checked !== undefined) return { success: true, data: checked as z.output<Schema> };
    const result = schema.safeParse(value);
    return result.success ? { success: true, data: result.data } : { success: false, error: result.error };
  };
}
