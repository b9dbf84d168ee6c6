// The quick checks of the stored formats (a journal's events and records, header.json, lease
// files, the listing index), generated from their zod schemas: each schema's JSON Schema
// (`toJSONSchema`, zod's own) compiled by ajv into standalone code. The zod schemas stay the
// single source of truth, and the generated modules need neither zod nor ajv at run time.
//
// A generated check answers a value with what the schema's `parse` returns (the value itself
// when it is already that, else a copy with unknown members dropped and defaults filled in, as
// zod does), or undefined: the value is invalid or unusual (a class instance, a null prototype),
// and the caller asks zod, which parses it or reports the problem as it always did.
//
//   node scripts/generate-checks.mjs                   writes every generated module again
//   node scripts/generate-checks.mjs --check [file...]  fails (exit 1) if one differs from what it would write
//
// A test in each package runs the check on its modules, so a schema changed without writing them
// again fails there. See docs/decisions/0029-generated-checks.md.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Ajv, { _ } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { transformSync } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every generated module: its file, the schemas it checks (export name -> module and schema name). */
export const generatedModules = [
  {
    // Events come from callers too: a copy gets defaults and loses unknown members, as zod does.
    file: 'packages/core/src/spec/journal-event-check.generated.js',
    fill: true,
    checks: { checkJournalEvent: ['packages/core/src/spec/events.ts', 'journalEventSchema'] },
  },
  {
    // Alone in its module: `sessions list --json` loads it and nothing else generated, and
    // checks every session's entry with it (compiled on load: see compiledOnLoad).
    file: 'packages/storage-fs/src/index/index-file-check.generated.js',
    compiledOnLoad: true,
    checks: { checkIndexFile: ['packages/storage-fs/src/index/summary-index.ts', 'indexFileSchema'] },
  },
  {
    file: 'packages/storage-fs/src/store/store-files-check.generated.js',
    checks: {
      checkRecordHead: ['packages/storage-fs/src/journal/journal-codec.ts', 'recordHeadSchema'],
      checkRecordSummary: ['packages/storage-fs/src/journal/journal-codec.ts', 'recordSummarySchema'],
      checkTailRecord: ['packages/storage-fs/src/journal/journal-codec.ts', 'tailRecordSchema'],
      checkBatchHead: ['packages/storage-fs/src/journal/journal-appender.ts', 'batchHeadSchema'],
      checkFirstEvent: ['packages/storage-fs/src/journal/journal-files.ts', 'firstEventSchema'],
      checkHeaderFile: ['packages/storage-fs/src/header/header-file.ts', 'headerFileSchema'],
      checkLeaseRecord: ['packages/storage-fs/src/lease/lease-files.ts', 'leaseRecordSchema'],
    },
  },
  {
    // LangGraph's graph events: a whole thread's read checks the data of every one.
    file: 'packages/langgraph/src/saver/graph-records-check.generated.js',
    checks: {
      checkCheckpointData: ['packages/langgraph/src/saver/graph-records.ts', 'checkpointDataSchema'],
      checkWritesData: ['packages/langgraph/src/saver/graph-records.ts', 'writesDataSchema'],
    },
  },
];

/**
 * The source of a generated module, from its schemas (export name -> zod schema). Each check is
 * an ajv validator that accepts only a value zod would return unchanged (no unknown member,
 * every default there). With `fill` (values written by callers, who leave defaults out), a
 * second one normalises a copy as zod does (drops unknown members, fills defaults) and answers
 * with the copy when zod would accept the value.
 */
export function checksModule(schemas, { fill = false, compiledOnLoad: onLoad = false } = {}) {
  const exact = createAjv({ fill: false });
  const filled = fill ? createAjv({ fill: true }) : null;
  for (const [name, schema] of Object.entries(schemas)) {
    const json = schema.toJSONSchema({
      target: 'draft-7',
      io: 'output',
      unrepresentable: 'throw',
      cycles: 'ref',
      reused: 'ref',
    });
    exact.addSchema(prepare(json, { fill: false }), `${name}Exact`);
    filled?.addSchema(prepare(json, { fill: true }), `${name}Filled`);
  }
  const names = Object.keys(schemas);
  const mapping = (suffix) => Object.fromEntries(names.map((name) => [`${name}${suffix}`, `${name}${suffix}`]));
  const exactCode = privateExports(standaloneCode(exact, mapping('Exact')));
  const parts = [onLoad ? compiledOnLoad(exactCode) : exactCode];
  // The two validators' names apart (each ajv instance numbers its functions and constants from 0).
  if (filled)
    parts.push(
      privateExports(standaloneCode(filled, mapping('Filled'))).replaceAll(
        /\b(validate|schema|pattern|func|wrapper)(\d+)\b/g,
        'fill_$1$2',
      ),
    );
  for (const name of names) {
    parts.push(
      [
        "/** What the schema's parse returns for `value`, or undefined when zod must decide. */",
        `export function ${name}(value) {`,
        fill ? `  if (${name}Exact(value)) return value;` : `  return ${name}Exact(value) ? value : undefined;`,
        ...(fill
          ? [
              '  const copy = plainCopy(value);',
              `  return copy !== NOT_PLAIN && ${name}Filled(copy) ? copy : undefined;`,
            ]
          : []),
        '}',
      ].join('\n'),
    );
  }
  if (fill) parts.push(PLAIN_COPY);
  if (parts.some((part) => part.includes('isJsonValue('))) parts.push(IS_JSON_VALUE);
  return [
    '// Generated by scripts/generate-checks.mjs from the zod schemas it lists: do not edit.',
    '// Run `node scripts/generate-checks.mjs` after changing one of them (a test fails until then).',
    ...parts,
    '',
  ].join('\n');
}

/**
 * The copy a `filled` validator normalises: plain objects, arrays and primitives only, so the
 * caller's value is never changed (and a frozen one is no obstacle). Anything else (a class
 * instance, a null prototype, a `__proto__` member) is left to zod, which would not return it as it
 * is. Arrays are copied item by item: a hole becomes undefined, which the validator refuses.
 */
const PLAIN_COPY = `const NOT_PLAIN = Symbol('not plain');
function plainCopy(value) {
  if (typeof value !== 'object' || value === null) return value;
  const prototype = Object.getPrototypeOf(value);
  if (prototype === Array.prototype) {
    const copy = new Array(value.length);
    for (let index = 0; index < value.length; index += 1) {
      const item = plainCopy(value[index]);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      copy[index] = item;
    }
    return copy;
  }
  if (prototype !== Object.prototype) return NOT_PLAIN;
  const copy = {};
  for (const key in value) {
    if (key === '__proto__') return NOT_PLAIN;
    const item = plainCopy(value[key]);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    copy[key] = item;
  }
  return copy;
}`;

/**
 * The check of a JSON value (zod's recursive union of string, number, boolean, null, array and
 * record), one loop over the value instead of each branch of the union tried at every level (an
 * event's `data` came out of JSON.parse: every branch but one fails at every node). It accepts
 * no more than the union's schema: a finite number, a plain array without holes, a plain object
 * without a \`__proto__\` member; nesting deeper than 500 levels (or a cycle) is left to zod.
 */
const IS_JSON_VALUE = `function isJsonValue(root) {
  const values = [root];
  const depths = [0];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop();
    if (typeof value === 'string' || typeof value === 'boolean' || value === null) continue;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return false;
      continue;
    }
    if (typeof value !== 'object' || depth >= 500) return false;
    const prototype = Object.getPrototypeOf(value);
    if (prototype === Array.prototype) {
      if (Object.keys(value).length !== value.length) return false;
      for (let index = 0; index < value.length; index += 1) {
        values.push(value[index]);
        depths.push(depth + 1);
      }
      continue;
    }
    if (prototype !== Object.prototype) return false;
    for (const key in value) {
      if (key === '__proto__') return false;
      values.push(value[key]);
      depths.push(depth + 1);
    }
  }
  return true;
}`;

/** A keyword of our own, compiled into the standalone code: a JSON value, checked by isJsonValue. */
const jsonValueKeyword = {
  keyword: 'jsonValue',
  schemaType: 'boolean',
  code(context) {
    context.fail(_`!isJsonValue(${context.data})`);
  },
};

/**
 * Whether a JSON Schema node is zod's recursive JSON value named `reference` (what
 * `jsonValueSchema` becomes): anyOf string, number, boolean, null, plain arrays and plain
 * records of itself.
 */
function isJsonValueSchema(node, reference) {
  const options = node?.anyOf;
  if (!Array.isArray(options) || options.length !== 6 || Object.keys(node).length !== 1) return false;
  const [string, number, boolean, nothing, array, object] = options;
  const only = (option, type) => JSON.stringify(option) === JSON.stringify({ type });
  return (
    only(string, 'string') &&
    only(number, 'number') &&
    only(boolean, 'boolean') &&
    only(nothing, 'null') &&
    JSON.stringify(array) === JSON.stringify({ type: 'array', items: { $ref: reference }, plainArray: true }) &&
    JSON.stringify(object) ===
      JSON.stringify({
        type: 'object',
        propertyNames: { type: 'string', not: { const: '__proto__' } },
        additionalProperties: { $ref: reference },
        plainObject: true,
      })
  );
}

function createAjv({ fill }) {
  const ajv = new Ajv({
    code: { source: true, esm: true, lines: true },
    // zod's semantics: string lengths in UTF-16 units, patterns without the `u` flag.
    unicode: false,
    unicodeRegExp: false,
    discriminator: true,
    messages: false,
    inlineRefs: false,
    strict: true,
    // A member of either type (zod's union of a number and a string) is one `type` list.
    allowUnionTypes: true,
    // Only the deprecation notice of `unicode`, still honoured in ajv 8; strict problems throw.
    logger: false,
    useDefaults: fill,
    removeAdditional: fill,
  });
  ajv.addKeyword(plainObjectKeyword);
  ajv.addKeyword(plainArrayKeyword);
  ajv.addKeyword(jsonValueKeyword);
  return ajv;
}

/**
 * The validators as parenthesized function expressions, which V8 compiles when the module is
 * loaded instead of at their first call. Node's compile cache keeps only what was compiled with
 * the module, so a new process then finds their bytecode there rather than compiling them again
 * (about 1.3 ms of `sessions list --json`, which calls them for every session). The code is
 * formatted first (ajv writes it unindented), so each top-level function ends at a `}` of its
 * own line; the aliases ajv puts first (`const xExact = validate0;`) move after the functions.
 */
function compiledOnLoad(code) {
  const formatted = transformSync(code, { format: 'esm', target: 'es2022' }).code;
  const aliases = [];
  const body = formatted
    .replaceAll(/^const (\w+) = (validate\d+);\n/gm, (line) => {
      aliases.push(line.trimEnd());
      return '';
    })
    .replaceAll(/^function (validate\d+)\(([^\n]*)\n([\s\S]*?)^\}$/gm, 'const $1 = (function $1($2\n$3});');
  return [body.trimEnd(), ...aliases].join('\n');
}

/** ajv's standalone exports become module-private constants (only the `check...` functions are exported). */
function privateExports(code) {
  return code.replace(/^"use strict";\n?/, '').replaceAll(/export const (\w+) = /g, 'const $1 = ');
}

/**
 * The JSON Schema as the generated checks need it: every object must be a plain one (zod copies
 * class instances and refuses records that are not plain) and every array hold only its items, a record never holds `__proto__` (zod
 * would set the copy's prototype), a discriminated union picks its one option by its tag, and for
 * `fill` a defaulted member may be absent.
 */
function prepare(schema, { fill }) {
  // Each option of a discriminated union, as a definition of its own: a function of its own in the
  // generated code, compiled (in a new process) only when a value of its tag is checked, instead
  // of one function holding every option compiled at the first check.
  const options = {};
  const walk = (node) => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    let copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value)]));
    copy = nullableObject(copy);
    if (key(copy, 'type', 'array')) copy.plainArray = true;
    if (key(copy, 'type', 'object')) {
      copy.plainObject = true;
      if (copy.propertyNames) copy.propertyNames = { ...copy.propertyNames, not: { const: '__proto__' } };
      if (fill && copy.properties && copy.required) {
        copy.required = copy.required.filter((name) => !('default' in (copy.properties[name] ?? {})));
      }
    }
    const tag = discriminatorOf(copy.oneOf);
    if (tag) {
      Object.assign(copy, { type: 'object', discriminator: { propertyName: tag } });
      copy.oneOf = copy.oneOf.map((option) => {
        const name = `option${Object.keys(options).length}_${String(option.properties[tag].const).replaceAll(/\W/g, '_')}`;
        options[name] = option;
        return { $ref: `#/definitions/${name}` };
      });
    }
    return copy;
  };
  const { $schema, ...rest } = schema;
  const prepared = walk(rest);
  if (Object.keys(options).length > 0) prepared.definitions = { ...prepared.definitions, ...options };
  // A JSON value is checked in one loop (isJsonValue), not through its union at every level.
  for (const [name, definition] of Object.entries(prepared.definitions ?? {})) {
    if (isJsonValueSchema(definition, `#/definitions/${name}`)) prepared.definitions[name] = { jsonValue: true };
  }
  return prepared;
}

/**
 * An object or null (zod's `nullable` of an object) as one schema of both types: ajv fills an
 * object's defaults only outside `anyOf`, and picks no option to try.
 */
function nullableObject(node) {
  const options = node.anyOf;
  if (!Array.isArray(options) || options.length !== 2) return node;
  const object = options.find((option) => option.type === 'object');
  const nullOption = options.find((option) => option.type === 'null' && Object.keys(option).length === 1);
  if (!object || !nullOption) return node;
  const { anyOf, ...rest } = node;
  return { ...rest, ...object, type: ['object', 'null'] };
}

function key(node, name, value) {
  const found = node[name];
  return found === value || (Array.isArray(found) && found.includes(value));
}

/** The member every option of a `oneOf` requires with a constant value, if there is one. */
function discriminatorOf(options) {
  if (!Array.isArray(options) || options.length < 2) return null;
  const [first] = options;
  const candidates = Object.keys(first.properties ?? {}).filter((name) => 'const' in (first.properties[name] ?? {}));
  return (
    candidates.find((name) =>
      options.every((option) => 'const' in (option.properties?.[name] ?? {}) && option.required?.includes(name)),
    ) ?? null
  );
}

/** A keyword of our own, compiled into the standalone code: true only for an array with nothing but its items. */
const plainArrayKeyword = {
  keyword: 'plainArray',
  type: 'array',
  schemaType: 'boolean',
  code(context) {
    const data = context.data;
    context.fail(
      _`Object.getPrototypeOf(${data}) !== Array.prototype || Object.keys(${data}).length !== ${data}.length`,
    );
  },
};

/** A keyword of our own, compiled into the standalone code: true only for a plain object. */
const plainObjectKeyword = {
  keyword: 'plainObject',
  type: 'object',
  schemaType: 'boolean',
  code(context) {
    context.fail(_`Object.getPrototypeOf(${context.data}) !== Object.prototype`);
  },
};

/** The declarations beside a generated module (TypeScript reads these, not the code). */
export function checksDeclarations(names) {
  return [
    '// Generated by scripts/generate-checks.mjs: do not edit.',
    ...names.map(
      (name) =>
        `/** What the schema's parse returns for \`value\`, or undefined when zod must decide. */\nexport declare function ${name}(value: unknown): unknown;`,
    ),
    '',
  ].join('\n');
}

/**
 * Loads the schemas from the sources (bundled with esbuild, as the build reads them) and writes
 * every module, or with `check` compares the files named (all when none) and names the stale ones.
 */
async function generate({ check, only }) {
  const { build } = await import('esbuild');
  const directory = mkdtempSync(path.join(os.tmpdir(), 'conclave-checks-'));
  try {
    const schemas = generatedModules.flatMap((module) => Object.values(module.checks));
    const entry = schemas
      .map(
        ([file, name], index) => `export { ${name} as schema${index} } from ${JSON.stringify(path.join(root, file))};`,
      )
      .join('\n');
    const outfile = path.join(directory, 'schemas.mjs');
    await build({
      stdin: { contents: entry, resolveDir: root, loader: 'ts' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      conditions: ['@resume/source'],
      define: { __CONCLAVE_SPEC_RULES__: 'null', __CONCLAVE_VERSION__: '"0.0.0"' },
      outfile,
      logLevel: 'warning',
      // The schemas' modules import the checks being written: they get stand-ins that accept nothing.
      plugins: [
        {
          name: 'checks-being-written',
          setup(build) {
            build.onResolve({ filter: /\.generated\.js$/ }, (args) => ({
              path: path.relative(root, path.resolve(args.resolveDir, args.path)),
              namespace: 'checks',
            }));
            build.onLoad({ filter: /.*/, namespace: 'checks' }, (args) => {
              const module = generatedModules.find((candidate) => candidate.file === args.path);
              const names = Object.keys(module?.checks ?? {});
              return { contents: names.map((name) => `export const ${name} = () => undefined;`).join('\n') };
            });
          },
        },
      ],
    });
    const loaded = await import(pathToFileURL(outfile).href);
    let index = 0;
    const stale = [];
    for (const module of generatedModules) {
      const forModule = {};
      for (const name of Object.keys(module.checks)) forModule[name] = loaded[`schema${index++}`];
      const files = {
        [module.file]: checksModule(forModule, { fill: module.fill, compiledOnLoad: module.compiledOnLoad }),
        [module.file.replace(/\.js$/, '.d.ts')]: checksDeclarations(Object.keys(forModule)),
      };
      if (only.length > 0 && !only.includes(module.file)) continue;
      for (const [file, content] of Object.entries(files)) {
        const target = path.join(root, file);
        if (!check) {
          writeFileSync(target, content);
          process.stdout.write(`wrote ${file}\n`);
        } else if (!existsSync(target) || readFileSync(target, 'utf8') !== content) {
          stale.push(file);
        }
      }
    }
    if (stale.length > 0) {
      process.stderr.write(
        `Out of date with the schemas: ${stale.join(', ')}. Run \`node scripts/generate-checks.mjs\` to write them again.\n`,
      );
      process.exitCode = 1;
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  await generate({ check, only: process.argv.slice(2).filter((argument) => argument !== '--check') });
}
