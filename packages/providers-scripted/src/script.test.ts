import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@resume/core/spec';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadScript, parseScript } from './script.js';

const directory = mkdtempSync(path.join(tmpdir(), 'conclave-script-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const argsArbitrary = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 8 }),
  fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
  { maxKeys: 3 },
);
const turnArbitrary = fc
  .record(
    {
      agent: fc.string({ minLength: 1, maxLength: 12 }),
      text: fc.string({ maxLength: 80 }),
      tool_calls: fc.array(fc.record({ name: fc.string({ minLength: 1, maxLength: 12 }), args: argsArbitrary }), {
        minLength: 1,
        maxLength: 3,
      }),
    },
    { requiredKeys: [] },
  )
  .filter((turn) => turn.text !== undefined || turn.tool_calls !== undefined);

describe('script files', () => {
  it('reads back any valid list of turns written as YAML', () => {
    fc.assert(
      fc.property(fc.array(turnArbitrary, { maxLength: 6 }), (turns) => {
        const file = path.join(directory, 'script.yaml');
        writeFileSync(file, stringify(turns));
        const expected = turns.map((turn) =>
          turn.tool_calls ? { ...turn, tool_calls: turn.tool_calls.map((call) => ({ ...call })) } : turn,
        );
        expect(loadScript(file)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('rejects anything that is not a list of turns with a ConfigError, never another error', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          parseScript(value, 'x.yaml');
        } catch (error) {
          expect(ConfigError.isInstance(error)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reports YAML syntax errors with the file name', () => {
    const file = path.join(directory, 'broken.yaml');
    writeFileSync(file, '- agent: lead\n  text: [unclosed\n');
    expect(() => loadScript(file)).toThrow(/broken\.yaml: not valid YAML/);
  });

  it('refuses unknown keys so a typo does not silently drop a turn field', () => {
    expect(() => parseScript([{ agent: 'lead', txt: 'typo' }], 's.yaml')).toThrow(/s\.yaml at turn 1/);
  });
});
