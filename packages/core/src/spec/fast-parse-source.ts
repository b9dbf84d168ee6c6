// The fast parser of a zod schema written out as source, for the parsers a command needs on
// its first read: `compileFastParse(schema)` walks the schema's definition, so the schema (and
// every schema it holds) must be built first, and building zod schemas is most of what a
// resume's start spends on them. A module written from `fastParseSource(schema, name)` (a
// `.generated.ts` file) parses the same values the same way without any schema built; the
// schema is built only when the written parser cannot vouch for a value and zod must decide.
// It is the same parser as `compileFastParse` (the same constructs, the same answers: a test
// runs both against zod on generated values), and a test fails when the written module is no
// longer the source of its schema as it is now.
import type { z } from 'zod';
import {
  type Kind,
  kindsOf,
  Unsupported,
  type ZodCheckLike,
  type ZodSchemaInternals,
  type ZodSchemaLike,
} from './fast-parse.js';

export interface FastParseSourceOptions {
  /**
   * Schemas the module does not write out but calls: a schema's `_zod` (its internals) to the
   * name of a fast parser of it in the module's scope (imported by the module's header), e.g.
   * the journal event schema inside a journal record.
   */
  references?: ReadonlyMap<unknown, string>;
}

/**
 * The source of `export function name(value)` for each `[name, schema]`: the fast parser of the
 * schema (answers exactly what zod's `parse` returns, or `NOT_PROVEN`), for a module that has
 * `NOT_PROVEN` (from fast-parse.ts) in scope and imports nothing else at run time (but the
 * `references`). Schemas the parsers share are written once. Null when a schema uses something
 * the fast parser does not handle (then `compileFastParse` returns null for it too).
 */
export function fastParseSource(
  schemas: Readonly<Record<string, z.ZodType>>,
  options: FastParseSourceOptions = {},
): string | null {
  const declarations: string[] = [];
  const names = new Map<ZodSchemaInternals, string>();
  for (const [internals, reference] of options.references ?? []) names.set(internals as ZodSchemaInternals, reference);
  let counter = 0;
  let kindOfWritten = false;
  const fresh = (prefix: string) => `${prefix}${counter++}`;

  /** Pattern constants by source: one per distinct pattern. */
  const patterns = new Map<string, string>();
  /** Parser functions by body: equal schemas (every `z.string()`...) share one function. */
  const byBody = new Map<string, string>();

  /** The name of the parser function of `schema`, written on first use (recursion reaches the name). */
  const parserOf = (schema: ZodSchemaLike): string => {
    const internals = schema._zod;
    const known = names.get(internals);
    if (known) return known;
    const parser = fresh('parse');
    names.set(internals, parser);
    const written = declarations.length;
    const code = body(internals);
    const same = byBody.get(code);
    const reached = new RegExp(`\\b${parser}\\b`);
    if (same && !reached.test(code) && !declarations.slice(written).some((line) => reached.test(line))) {
      names.set(internals, same);
      return same;
    }
    byBody.set(code, parser);
    declarations.push(`function ${parser}(value) {\n${code}\n}`);
    return parser;
  };

  const body = (internals: ZodSchemaInternals): string => {
    const definition = internals.def;
    if (definition.coerce) throw new Unsupported('coercion');
    const leaf = leafSource(internals);
    if (leaf) return `  return ${leaf} ? value : NOT_PROVEN;`;
    switch (definition.type) {
      case 'nullable':
        noChecks(definition);
        return `  return value === null ? null : ${parserOf(required(definition.innerType))}(value);`;
      case 'optional':
        noChecks(definition);
        return `  return value === undefined ? undefined : ${parserOf(required(definition.innerType))}(value);`;
      case 'default': {
        noChecks(definition);
        const inner = parserOf(required(definition.innerType));
        const fallback = literal(definition.defaultValue, 'default');
        return [
          `  if (value === undefined) return ${fallback};`,
          `  const parsed = ${inner}(value);`,
          `  return parsed === undefined ? ${fallback} : parsed;`,
        ].join('\n');
      }
      case 'lazy': {
        noChecks(definition);
        const getter = definition.getter;
        if (!getter) throw new Unsupported('lazy without getter');
        return `  return ${parserOf(getter())}(value);`;
      }
      case 'array': {
        const element = parserOf(required(definition.element));
        const checks = checksSource(definition.checks, 'array', 'output');
        return [
          '  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return NOT_PROVEN;',
          '  if (Object.keys(value).length !== value.length) return NOT_PROVEN;',
          '  const output = new Array(value.length);',
          '  for (let index = 0; index < value.length; index += 1) {',
          '    const item = value[index];',
          '    if (item === undefined) return NOT_PROVEN;',
          `    const parsed = ${element}(item);`,
          '    if (parsed === NOT_PROVEN || parsed === undefined) return NOT_PROVEN;',
          '    output[index] = parsed;',
          '  }',
          checks ? `  return ${checks} ? output : NOT_PROVEN;` : '  return output;',
        ].join('\n');
      }
      case 'object':
        return objectBody(definition);
      case 'record':
        return recordBody(definition);
      case 'union':
        return unionBody(definition);
      default:
        throw new Unsupported(definition.type);
    }
  };

  const objectBody = (definition: ZodSchemaInternals['def']): string => {
    if (definition.catchall !== undefined) throw new Unsupported('catchall');
    noChecks(definition);
    const shape = definition.shape ?? {};
    if (Object.getOwnPropertySymbols(shape).length > 0) throw new Unsupported('symbol keys');
    const lines = [
      "  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;",
      '  const output = {};',
      '  let item;',
      '  let parsed;',
    ];
    for (const [key, field] of Object.entries(shape)) {
      if (key === '__proto__') throw new Unsupported('__proto__ key');
      const type = field._zod.def.type;
      const absent = type === 'optional' ? 'optional' : type === 'default' ? 'defaulted' : 'required';
      if (absent === 'required' && field._zod.optin !== undefined) throw new Unsupported(`optional ${type}`);
      const quoted = JSON.stringify(key);
      const parse = parserOf(field);
      lines.push(`  item = value[${quoted}];`);
      // A key set to undefined, or inherited, is left to zod.
      if (absent === 'required') lines.push('  if (item === undefined) return NOT_PROVEN;');
      else lines.push(`  if (item === undefined && ${quoted} in value) return NOT_PROVEN;`);
      const store = [
        `parsed = ${parse}(item);`,
        'if (parsed === NOT_PROVEN) return NOT_PROVEN;',
        `output[${quoted}] = parsed;`,
      ];
      if (absent === 'optional')
        lines.push('  if (item !== undefined) {', ...store.map((line) => `    ${line}`), '  }');
      else lines.push(...store.map((line) => `  ${line}`));
    }
    lines.push('  return output;');
    return lines.join('\n');
  };

  const recordBody = (definition: ZodSchemaInternals['def']): string => {
    noChecks(definition);
    const keyType = required(definition.keyType)._zod.def;
    if (keyType.type !== 'string' || (keyType.checks?.length ?? 0) > 0 || keyType.coerce) {
      throw new Unsupported('record keys');
    }
    if (definition.mode === 'loose') throw new Unsupported('loose record');
    const element = parserOf(required(definition.valueType));
    return [
      "  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;",
      '  if (Object.getOwnPropertySymbols(value).length > 0) return NOT_PROVEN;',
      '  const output = {};',
      '  const keys = Object.keys(value);',
      '  for (let index = 0; index < keys.length; index += 1) {',
      '    const key = keys[index];',
      "    if (key === '__proto__') return NOT_PROVEN;",
      '    const item = value[key];',
      '    if (item === undefined) return NOT_PROVEN;',
      `    const parsed = ${element}(item);`,
      '    if (parsed === NOT_PROVEN || parsed === undefined) return NOT_PROVEN;',
      '    output[key] = parsed;',
      '  }',
      '  return output;',
    ].join('\n');
  };

  const unionBody = (definition: ZodSchemaInternals['def']): string => {
    noChecks(definition);
    const options = definition.options ?? [];
    if (definition.discriminator !== undefined) {
      const discriminator = definition.discriminator;
      const cases: string[] = [];
      const tags = new Set<unknown>();
      for (const option of options) {
        const tag = option._zod.def.shape?.[discriminator];
        const values = tag?._zod.def.type === 'literal' || tag?._zod.def.type === 'enum' ? tag._zod.values : undefined;
        if (option._zod.def.type !== 'object' || !values) throw new Unsupported('discriminated option');
        const parse = parserOf(option);
        for (const value of values) {
          if (tags.has(value)) throw new Unsupported('duplicate discriminator');
          tags.add(value);
          cases.push(`    case ${literal(value, 'discriminator')}:\n      return ${parse}(value);`);
        }
      }
      return [
        "  if (typeof value !== 'object' || value === null) return NOT_PROVEN;",
        `  switch (value[${JSON.stringify(discriminator)}]) {`,
        ...cases,
        '    default:',
        '      return NOT_PROVEN;',
        '  }',
      ].join('\n');
    }
    // zod takes the first option that accepts a value; with options that accept disjoint kinds of
    // value, at most one can, and it is the one for the value's kind.
    const byKind = new Map<Kind, string>();
    for (const option of options) {
      const parse = parserOf(option);
      for (const kind of kindsOf(option, 0)) {
        if (byKind.has(kind)) throw new Unsupported('overlapping union options');
        byKind.set(kind, parse);
      }
    }
    if (!kindOfWritten) {
      kindOfWritten = true;
      declarations.push(
        [
          'function kindOf(value) {',
          "  if (value === null) return 'null';",
          "  if (Array.isArray(value)) return 'array';",
          '  const type = typeof value;',
          "  return type === 'string' || type === 'number' || type === 'boolean' || type === 'object' ? type : 'other';",
          '}',
        ].join('\n'),
      );
    }
    return [
      '  switch (kindOf(value)) {',
      ...[...byKind].map(([kind, parse]) => `    case '${kind}':\n      return ${parse}(value);`),
      '    default:',
      '      return NOT_PROVEN;',
      '  }',
    ].join('\n');
  };

  /** The condition for a schema whose values are taken as they are (a string, an enum...); null for others. */
  const leafSource = (internals: ZodSchemaInternals): string | null => {
    const definition = internals.def;
    let base: string;
    switch (definition.type) {
      case 'string':
        base = "typeof value === 'string'";
        break;
      case 'number':
        // zod refuses NaN and the infinities as numbers.
        base = "typeof value === 'number' && Number.isFinite(value)";
        break;
      case 'boolean':
        base = "typeof value === 'boolean'";
        break;
      case 'null':
        base = 'value === null';
        break;
      case 'enum':
      case 'literal': {
        const values = internals.values;
        if (!values || values.size === 0) throw new Unsupported(definition.type);
        base = `(${[...values].map((item) => `value === ${literal(item, definition.type)}`).join(' || ')})`;
        break;
      }
      default:
        return null;
    }
    const checks = checksSource(definition.checks, definition.type, 'value');
    return checks ? `${base} && ${checks}` : base;
  };

  const checksSource = (checks: ZodCheckLike[] | undefined, type: string, value: string): string | null => {
    if (!checks || checks.length === 0) return null;
    return checks.map((check) => checkSource(check, type, value)).join(' && ');
  };

  const checkSource = (check: ZodCheckLike, type: string, value: string): string => {
    const source = zodCheckSource(check, type, value, (written) => {
      let constant = patterns.get(written);
      if (!constant) {
        constant = fresh('pattern');
        patterns.set(written, constant);
        declarations.push(`const ${constant} = ${written};`);
      }
      return constant;
    });
    if (source === null) throw new Unsupported(`check ${check._zod.def.check}`);
    return source;
  };

  try {
    const roots = Object.entries(schemas).map(([name, schema]) => {
      const root = parserOf(schema as unknown as ZodSchemaLike);
      return `export function ${name}(value) {\n  return ${root}(value);\n}`;
    });
    return [...declarations, ...roots, ''].join('\n');
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
}

/**
 * The source of one of zod's value checks on `value` (an expression holding a value known to be
 * of `type`), or null for a check it does not know. A pattern is named by `pattern`, given the
 * source of the RegExp (the module declares the constant). Shared with the listing index's
 * written-out check (`exactCheckSource` in @resume/storage-fs).
 */
export function zodCheckSource(
  check: unknown,
  type: string,
  value: string,
  pattern: (written: string) => string,
): string | null {
  const definition = (check as ZodCheckLike)._zod.def;
  // A check's `when` can only skip it; running it regardless can only send more values to zod.
  switch (definition.check) {
    case 'string_format': {
      const regexp = definition.pattern;
      if (type !== 'string' || definition.format !== 'regex' || !(regexp instanceof RegExp)) return null;
      const constant = pattern(`new RegExp(${JSON.stringify(regexp.source)}, ${JSON.stringify(regexp.flags)})`);
      return `((${constant}.lastIndex = 0), ${constant}.test(${value}))`;
    }
    case 'number_format':
      return type === 'number' && definition.format === 'safeint' ? `Number.isSafeInteger(${value})` : null;
    case 'greater_than':
    case 'less_than': {
      const bound = definition.value;
      if (type !== 'number' || typeof bound !== 'number' || !Number.isFinite(bound)) return null;
      const operator = `${definition.check === 'greater_than' ? '>' : '<'}${definition.inclusive === true ? '=' : ''}`;
      return `${value} ${operator} ${String(bound)}`;
    }
    case 'min_length':
    case 'max_length':
    case 'length_equals': {
      const limit =
        definition.check === 'length_equals' ? definition.length : (definition.minimum ?? definition.maximum);
      if ((type !== 'string' && type !== 'array') || typeof limit !== 'number' || !Number.isFinite(limit)) return null;
      const operator = definition.check === 'min_length' ? '>=' : definition.check === 'max_length' ? '<=' : '===';
      return `${value}.length ${operator} ${String(limit)}`;
    }
    default:
      return null;
  }
}

/** A plain value written as source (a default, an enum member); others are not handled. */
function literal(value: unknown, what: string): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  // `Object.is`: -0 is written as -0, and NaN or the infinities are not written at all.
  if (typeof value === 'number' && Number.isFinite(value)) return Object.is(value, -0) ? '-0' : String(value);
  throw new Unsupported(`${what} value`);
}

function noChecks(definition: ZodSchemaInternals['def']): void {
  if ((definition.checks?.length ?? 0) > 0) throw new Unsupported(`checks on ${definition.type}`);
}

function required(schema: ZodSchemaLike | undefined): ZodSchemaLike {
  if (!schema) throw new Unsupported('missing inner schema');
  return schema;
}
