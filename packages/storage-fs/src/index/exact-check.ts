// A quick check derived from a zod schema, for the listing index: reading 1,000 summaries
// through zod costs about 10 ms in a fresh process (its parser is general, and runs cold),
// while the checks themselves are a few comparisons per field. `compileExactCheck(schema)`
// walks the schema's own definition (no second copy of it to keep in step) and returns a
// predicate that answers true only when zod would accept the value AND return an equal
// one: no unknown keys to strip, no default to fill in, no transform. Whatever it cannot
// prove (an unknown construct, an unknown check) makes it answer false, or makes the
// compilation return null, and the caller parses with zod as before. So a value taken on
// the quick path is one zod would have returned unchanged, and every other value meets zod.
import {
  compileLeafCheck,
  compileZodCheck,
  type ZodCheckLike,
  type ZodSchemaInternals,
  type ZodSchemaLike,
  zodCheckSource,
} from '@resume/core/spec';
import type { z } from 'zod';

/** True when zod would parse `value` successfully and return an equal value. */
export type ExactCheck = (value: unknown) => boolean;

/** Thrown inside the compiler for a construct it does not handle; never escapes. */
class Unsupported extends Error {}

/** The quick check for `schema`, or null when the schema uses something it does not handle. */
export function compileExactCheck(schema: z.ZodType): ExactCheck | null {
  try {
    return compile(schema as unknown as ZodSchemaLike);
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
}

function compile(schema: ZodSchemaLike): ExactCheck {
  const internals = schema._zod;
  const definition = internals.def;
  if (definition.coerce) throw new Unsupported('coercion');
  // Strings, numbers, booleans, null, enums and literals: zod returns them as they are.
  const leaf = compileLeafCheck(schema);
  if (leaf === 'unsupported') throw new Unsupported(definition.type);
  if (leaf) return leaf;
  switch (definition.type) {
    case 'nullable': {
      const inner = compile(required(definition.innerType));
      return withChecks((value) => value === null || inner(value), definition.checks, 'nullable');
    }
    case 'default': {
      // Only a value that is there: a missing one would be filled in, so zod's output differs.
      const inner = compile(required(definition.innerType));
      return withChecks((value) => value !== undefined && inner(value), definition.checks, 'default');
    }
    case 'optional': {
      const inner = compile(required(definition.innerType));
      return withChecks((value) => value === undefined || inner(value), definition.checks, 'optional');
    }
    case 'array': {
      const element = compile(required(definition.element));
      return withChecks(
        (value) => {
          if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return false;
          // Extra properties on an array are dropped by zod (JSON never has them; memory may).
          if (Object.keys(value).length !== value.length) return false;
          // An index loop, not `every`: a hole reads as undefined here, as it does in zod.
          for (let index = 0; index < value.length; index += 1) {
            const item: unknown = value[index];
            if (item === undefined || !element(item)) return false;
          }
          return true;
        },
        definition.checks,
        'array',
      );
    }
    case 'object':
      return withChecks(compileObject(definition), definition.checks, 'object');
    default:
      throw new Unsupported(definition.type);
  }
}

function compileObject(definition: ZodSchemaInternals['def']): ExactCheck {
  // Unknown keys are stripped (no catchall) or refused (`never`): either way a value that has
  // one is not returned unchanged, so it leaves the quick path. Other catchalls are not handled.
  const catchall = definition.catchall;
  if (catchall !== undefined && catchall._zod.def.type !== 'never') throw new Unsupported('catchall');
  const shape = definition.shape ?? {};
  const fields = Object.entries(shape).map(([key, field]) => ({
    key,
    // A key may be absent only where zod leaves it absent too.
    mayBeAbsent: field._zod.def.type === 'optional',
    check: compile(field),
  }));
  const known = new Set(fields.map((field) => field.key));
  // Index loops rather than iterators and callbacks: this runs once per listing, cold, where
  // every call and allocation costs (see the module comment).
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const record = value as Record<string, unknown>;
    // Only plain objects (what JSON.parse returns): zod returns plain objects for anything else.
    if (Object.getPrototypeOf(record) !== Object.prototype) return false;
    const keys = Object.keys(record);
    for (let index = 0; index < keys.length; index += 1) if (!known.has(keys[index] as string)) return false;
    for (let index = 0; index < fields.length; index += 1) {
      const field = fields[index] as (typeof fields)[number];
      if (!Object.hasOwn(record, field.key)) {
        if (field.mayBeAbsent) continue;
        return false;
      }
      const item = record[field.key];
      // zod treats a key set to undefined like a missing one; keep such values on zod's path.
      if (item === undefined || !field.check(item)) return false;
    }
    return true;
  };
}

function withChecks(base: ExactCheck, checks: ZodCheckLike[] | undefined, type: string): ExactCheck {
  if (!checks || checks.length === 0) return base;
  const compiled = checks.map((check) => compileCheck(check, type));
  const [first, second] = compiled;
  if (compiled.length === 1 && first) return (value) => base(value) && first(value);
  if (compiled.length === 2 && first && second) return (value) => base(value) && first(value) && second(value);
  return (value) => {
    if (!base(value)) return false;
    for (let index = 0; index < compiled.length; index += 1) if (!(compiled[index] as ExactCheck)(value)) return false;
    return true;
  };
}

function compileCheck(check: ZodCheckLike, type: string): ExactCheck {
  const compiled = compileZodCheck(check, type);
  if (!compiled) throw new Unsupported(`check ${check._zod.def.check}`);
  return compiled;
}

function required(schema: ZodSchemaLike | undefined): ZodSchemaLike {
  if (!schema) throw new Unsupported('missing inner schema');
  return schema;
}

/**
 * The same check as `compileExactCheck(schema)`, written out as the source of a module that
 * exports `name(value): boolean` and imports nothing (no zod): a listing can check the index
 * before zod is even loaded. Null when the schema uses something the check does not handle.
 * `index-file-check.generated.ts` is this source for the listing index; a test keeps it in step.
 */
export function exactCheckSource(schema: z.ZodType, name: string): string | null {
  const declarations: string[] = [];
  let counter = 0;
  const fresh = (prefix: string) => `${prefix}${counter++}`;

  const leaf = (schema: ZodSchemaLike, value: string): string => {
    const definition = schema._zod.def;
    if (definition.coerce) throw new Unsupported('coercion');
    switch (definition.type) {
      case 'string':
        return withCheckSource(`typeof ${value} === 'string'`, definition.checks, 'string', value);
      case 'number':
        return withCheckSource(
          `typeof ${value} === 'number' && Number.isFinite(${value})`,
          definition.checks,
          'number',
          value,
        );
      case 'boolean':
        return withCheckSource(`typeof ${value} === 'boolean'`, definition.checks, 'boolean', value);
      case 'null':
        return withCheckSource(`${value} === null`, definition.checks, 'null', value);
      case 'enum':
      case 'literal': {
        const values = schema._zod.values;
        if (!values || values.size === 0) throw new Unsupported(definition.type);
        const alternatives = [...values].map((item) => {
          if (item !== null && !['string', 'number', 'boolean'].includes(typeof item))
            throw new Unsupported(`${definition.type} value`);
          if (typeof item === 'number' && !Number.isFinite(item)) throw new Unsupported(`${definition.type} value`);
          return `${value} === ${JSON.stringify(item)}`;
        });
        return withCheckSource(`(${alternatives.join(' || ')})`, definition.checks, definition.type, value);
      }
      case 'nullable':
        return withCheckSource(
          `(${value} === null || ${leaf(required(definition.innerType), value)})`,
          definition.checks,
          'nullable',
          value,
        );
      case 'default':
        return withCheckSource(
          `(${value} !== undefined && ${leaf(required(definition.innerType), value)})`,
          definition.checks,
          'default',
          value,
        );
      case 'optional':
        return withCheckSource(
          `(${value} === undefined || ${leaf(required(definition.innerType), value)})`,
          definition.checks,
          'optional',
          value,
        );
      case 'array': {
        const helper = fresh('array');
        const element = leaf(required(definition.element), 'item');
        declarations.push(
          [
            `function ${helper}(value) {`,
            '  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return false;',
            '  if (Object.keys(value).length !== value.length) return false;',
            '  for (let index = 0; index < value.length; index += 1) {',
            '    const item = value[index];',
            `    if (item === undefined || !(${element})) return false;`,
            '  }',
            '  return true;',
            '}',
          ].join('\n'),
        );
        return withCheckSource(`${helper}(${value})`, definition.checks, 'array', value);
      }
      case 'object': {
        const catchall = definition.catchall;
        if (catchall !== undefined && catchall._zod.def.type !== 'never') throw new Unsupported('catchall');
        const helper = fresh('object');
        const lines = [
          `function ${helper}(value) {`,
          "  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;",
          '  if (Object.getPrototypeOf(value) !== Object.prototype) return false;',
          '  let present = 0;',
        ];
        for (const [key, field] of Object.entries(definition.shape ?? {})) {
          const item = fresh('field');
          const quoted = JSON.stringify(key);
          lines.push(`  if (Object.hasOwn(value, ${quoted})) {`);
          lines.push(`    const ${item} = value[${quoted}];`);
          lines.push(`    if (${item} === undefined || !(${leaf(field, item)})) return false;`);
          lines.push('    present += 1;');
          lines.push(field._zod.def.type === 'optional' ? '  }' : '  } else return false;');
        }
        lines.push('  return Object.keys(value).length === present;', '}');
        declarations.push(lines.join('\n'));
        return withCheckSource(`${helper}(${value})`, definition.checks, 'object', value);
      }
      default:
        throw new Unsupported(definition.type);
    }
  };

  const withCheckSource = (base: string, checks: ZodCheckLike[] | undefined, type: string, value: string): string => {
    if (!checks || checks.length === 0) return base;
    return `(${[base, ...checks.map((check) => checkSource(check, type, value))].join(' && ')})`;
  };

  const checkSource = (check: ZodCheckLike, type: string, value: string): string => {
    const source = zodCheckSource(check, type, value, (written) => {
      const constant = fresh('pattern');
      declarations.push(`const ${constant} = ${written};`);
      return constant;
    });
    if (source === null) throw new Unsupported(`check ${check._zod.def.check}`);
    return source;
  };

  try {
    const body = leaf(schema as unknown as ZodSchemaLike, 'value');
    return [...declarations, `export function ${name}(value) {`, `  return ${body};`, '}', ''].join('\n');
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
}
