// What `session.step` accepts without a codec, checked by the compiler: an output the journal's
// JSON would change (a Map, a Set, a bigint, a function, a class instance) does not compile,
// and the compiler's message names the problem and the fix (a codec). The `@ts-expect-error`
// lines are checked by the repository's type-check; the compiled snippets by this test.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Session } from './types.js';

const engineDirectory = path.dirname(fileURLToPath(import.meta.url));
const repositoryRoot = path.resolve(engineDirectory, '../../../..');

class Money {
  constructor(readonly cents: number) {}
  format(): string {
    return `${(this.cents / 100).toFixed(2)}`;
  }
}

/** Never called: its body is what the type-check looks at. */
async function outputsThatNeedACodec(session: Session): Promise<void> {
  // @ts-expect-error a Map needs a codec
  await session.step('map', () => new Map<string, number>());
  // @ts-expect-error a Set, however deep, needs a codec
  await session.step('set', async () => ({ rows: [{ seen: new Set([1]) }] }), { safety: 'unsafe' });
  // @ts-expect-error a bigint needs a codec
  await session.step('bigint', () => 10n);
  // @ts-expect-error a function needs a codec
  await session.step('function', () => () => 1);
  // @ts-expect-error a class instance with methods needs a codec
  await session.step('money', () => new Money(100));
  const money = await session.step('money', () => new Money(100), {
    codec: { encode: (value) => value.cents, decode: (json) => new Money(json as number) },
  });
  expectTypeOf(money).toEqualTypeOf<Money>();
}

/** The compiler's diagnostics per snippet: each a module in this folder with `session: Session` in scope. */
function diagnosticsOf(snippets: Record<string, string>): Record<string, string[]> {
  const files = new Map(
    Object.entries(snippets).map(([name, body]) => [
      path.join(engineDirectory, `__${name}.ts`),
      `import type { JsonValue } from '../spec/index.js';\nimport type { Session } from './types.js';\ndeclare const session: Session;\nexport async function snippet() {\n${body}\n}\n`,
    ]),
  );
  const config = ts.readConfigFile(path.join(repositoryRoot, 'tsconfig.base.json'), ts.sys.readFile);
  const options = { ...ts.parseJsonConfigFileContent(config.config, ts.sys, repositoryRoot).options, noEmit: true };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    const text = files.get(name);
    return text === undefined ? getSourceFile(name, language, ...rest) : ts.createSourceFile(name, text, language);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  const program = ts.createProgram([...files.keys()], options, host);
  return Object.fromEntries(
    Object.keys(snippets).map((name) => [
      name,
      ts
        .getPreEmitDiagnostics(program, program.getSourceFile(path.join(engineDirectory, `__${name}.ts`)))
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
    ]),
  );
}

const refused = [
  ["await session.step('map', () => new Map<string, number>());", 'output is a Map'],
  ["await session.step('set', async () => ({ rows: [{ seen: new Set([1]) }] }));", 'output.rows[].seen is a Set'],
  ["await session.step('bigint', () => 10n);", 'output is a bigint'],
  ["await session.step('function', () => () => 1);", 'output is a function'],
  [
    "class Money { constructor(readonly cents: number) {} format() { return ''; } }\nawait session.step('money', () => new Money(100));",
    'output has methods (a class instance)',
  ],
] as const;

const accepted = [
  "const dated = await session.step('dated', () => ({ when: new Date(), note: undefined as string | undefined }));",
  'const when: string = dated.when;',
  "const json = await session.step('json', (): unknown => 1);",
  "const value: JsonValue = await session.step('value', (): JsonValue => ({ rows: [1, 'two', null] }));",
  "const nothing: undefined = await session.step('nothing', async () => {});",
  "const tree = await session.step('tree', () => ({ name: 'root', children: [{ name: 'leaf', children: [] }] }));",
  "const money = await session.step('money', () => new Map([['eur', 1]]), { codec: { encode: (value) => Object.fromEntries(value), decode: (json) => new Map(Object.entries(json as Record<string, number>)) } });",
  'const rate: number | undefined = money.get("eur");',
  'return [when, json, value, nothing, tree, rate];',
].join('\n');

describe('step outputs and the compiler', () => {
  const diagnostics = diagnosticsOf({ refused: refused.map(([line]) => line).join('\n'), accepted });

  it('refuses what the journal cannot keep as it is, with a message that names the problem and a codec as the fix', () => {
    expectTypeOf(outputsThatNeedACodec).returns.resolves.toBeVoid();
    expect(diagnostics.refused).toHaveLength(refused.length);
    for (const [index, [, problem]] of refused.entries()) {
      expect(diagnostics.refused?.[index]).toContain(`${problem}: give the step a codec ({ encode, decode })`);
    }
  });

  it('accepts JSON (a Date becomes its string, an unknown output JSON, a JsonValue itself) and any type with a codec', () => {
    expect(diagnostics.accepted).toEqual([]);
  });
});
