// The checks generated from the graph records' schemas (graph-records-check.generated.js, written
// by scripts/generate-checks.mjs) against zod: each accepts a valid record as it is, nothing zod
// refuses, and the module is the one the script writes from the schemas as they are now.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mutate } from '@resume/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { checkpointDataSchema, writesDataSchema } from './graph-records.js';
import { checkCheckpointData, checkWritesData } from './graph-records-check.generated.js';

/** The repository's generator, run as a tool (it is no part of any package). */
const generator = fileURLToPath(new URL('../../../../scripts/generate-checks.mjs', import.meta.url));

const blob = 'ab'.repeat(32);
const checkpoint = {
  format: 1,
  checkpoint: { type: 'json', json: { v: 4, id: 'c2', channel_values: {}, channel_versions: { note: 2 } } },
  metadata: { type: 'json', json: { source: 'loop', step: 1, parents: {} } },
  values: [
    { channel: 'note', version: 2, item: { type: 'json', json: 'a note' } },
    { channel: 'messages', version: '00002.5', items: [{ type: 'json', json: { lc: 1 } }], base: 1 },
    { channel: 'file', version: 3, item: { type: 'bytes', base64: 'AAEC' } },
    { channel: 'large', version: 4, item: { type: 'json', blob } },
    { channel: 'gone', version: 5, empty: true },
  ],
};
const writes = {
  format: 1,
  taskPath: '~__pregel_pull, step',
  writes: [
    { index: 0, channel: 'note', value: { type: 'json', json: 'next' } },
    { index: -1, channel: '__error__', value: { type: 'json', json: { message: 'failed' } } },
  ],
};

const cases: [string, (value: unknown) => unknown, z.ZodType, unknown][] = [
  ['checkpoint', checkCheckpointData, checkpointDataSchema, checkpoint],
  ["task's writes", checkWritesData, writesDataSchema, writes],
];

describe('the generated checks of the graph records', () => {
  it('are the ones scripts/generate-checks.mjs writes from the schemas as they are now', () => {
    // A changed schema fails here until `node scripts/generate-checks.mjs` writes the module again.
    const checked = spawnSync(
      process.execPath,
      [generator, '--check', 'packages/langgraph/src/saver/graph-records-check.generated.js'],
      { encoding: 'utf8' },
    );
    expect(checked.stderr).toBe('');
    expect(checked.status).toBe(0);
  }, 60_000);

  it.each(cases)('accept a valid %s as it is, as zod parses it', (_name, check, schema, value) => {
    const copy = JSON.parse(JSON.stringify(value)) as unknown;
    expect(check(copy)).toBe(copy);
    expect(schema.parse(copy)).toEqual(copy);
  });

  it.each(cases)('accept nothing zod refuses in a damaged %s', (_name, check, schema, value) => {
    const strange = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(-1, 0, 0.5, 2 ** 53, '', null, [], {}, '__proto__', 'ab'.repeat(31)),
    );
    let refused = 0;
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), strange, fc.nat(2), (path, replacement, op) => {
        const damaged = JSON.parse(JSON.stringify(mutate(value, path, replacement, op))) as unknown;
        const answer = check(damaged);
        const zod = schema.safeParse(damaged);
        if (answer !== undefined) {
          expect(zod.success).toBe(true);
          expect(answer).toEqual(zod.data);
        } else if (!zod.success) refused += 1;
      }),
      { numRuns: 500 },
    );
    // The damage reached the checks: most of it is refused by both.
    expect(refused).toBeGreaterThan(100);
  });
});
