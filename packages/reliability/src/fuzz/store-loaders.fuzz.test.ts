// Fuzzing what the file store loads from disk with records that pass their checksum
// (so the schemas, not the checksums, are under test): journal records with random
// or subtly wrong content, fold snapshots with random or edited state, listing
// indexes and headers with random content. A session reads as a committed prefix or
// is refused with a typed error; a bad snapshot or index is never used (the journal
// is replayed, the listing rebuilt); the other session in the store never notices.
import { crc32 } from 'node:zlib';
import type { Engine, SessionState } from '@resume/core';
import { ConclaveError, JournalCorruptedError } from '@resume/core/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SimulatedFileSystem } from '../power-loss/simulated-file-system.js';
import { engineOnDisk, SIMULATED_HOME } from '../support/simulated-engine.js';
import { sized, sizedTimeout } from '../support/stress.js';

const HOME = SIMULATED_HOME;
const RUNS = sized(500, 4_000);
/** What the store needs of a snapshot file to take it as a claim of how far the journal went. */
const snapshotClaimSchema = z.object({
  v: z.literal(1),
  seq: z.number().int().nonnegative(),
  formatVersion: z.number().int(),
});

/** The store's framing: a JSON object per line whose first member is the crc32 of the rest. */
function frame(value: object): Buffer {
  const body = Buffer.from(JSON.stringify(value).slice(1), 'utf8');
  return Buffer.concat([
    Buffer.from(`{"crc":"${crc32(body).toString(16).padStart(8, '0')}",`),
    body,
    Buffer.from('\n'),
  ]);
}

const engineOn = (disk: SimulatedFileSystem): Engine => engineOnDisk(disk, { snapshotEvery: 4 });

interface Base {
  disk: SimulatedFileSystem;
  target: string;
  bystander: string;
  state: SessionState;
  bystanderState: SessionState;
  files: Map<string, Buffer>;
}

async function buildBase(): Promise<Base> {
  const disk = new SimulatedFileSystem();
  const engine = engineOn(disk);
  const ids: string[] = [];
  for (const title of ['bystander', 'target']) {
    const session = await engine.createSession({ title, mode: 'custom' });
    for (let index = 1; index <= 3; index += 1) {
      session.addMessage({ role: 'user', content: `${title} question ${index}` });
      session.addMessage({ role: 'assistant', content: `${title} answer ${index}`, speaker: 'analyst', round: index });
      await session.checkpoint(`round ${index}`);
    }
    await session.close();
    ids.push(session.id);
  }
  await engine.close();
  disk.syncEverything();
  const [bystander, target] = ids as [string, string];
  const reader = engineOn(disk.clone());
  const base = {
    disk,
    target,
    bystander,
    state: await reader.readSession(target),
    bystanderState: await reader.readSession(bystander),
    files: disk.allFiles(),
  };
  await reader.close();
  return base;
}

/** Replaces the value at a random path of a JSON document with another value. */
function edited(document: unknown, pathSeed: number, replacement: unknown): unknown {
  const copy: unknown = structuredClone(document);
  const containers: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        containers.push({ parent: value, key: index });
        walk(item);
      });
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        containers.push({ parent: value as Record<string, unknown>, key });
        walk(item);
      }
    }
  };
  walk(copy);
  const chosen = containers[pathSeed % Math.max(1, containers.length)];
  if (chosen) (chosen.parent as Record<string | number, unknown>)[chosen.key] = replacement;
  return copy;
}

async function withFile(base: Base, file: string, content: Buffer, check: (engine: Engine) => Promise<void>) {
  const disk = base.disk.clone();
  disk.plantFile(file, content);
  const engine = engineOn(disk);
  try {
    await check(engine);
    expect(await engine.readSession(base.bystander)).toEqual(base.bystanderState);
  } finally {
    await engine.close();
  }
}

/** Either the expected value, or a typed refusal. */
async function valueOrRefusal<T>(operation: () => Promise<T>): Promise<T | ConclaveError> {
  try {
    return await operation();
  } catch (error) {
    if (!ConclaveError.isInstance(error)) throw error;
    expect(error.message.length).toBeGreaterThan(10);
    return error;
  }
}

const contents = (state: SessionState) => state.messages.map((message) => message.content);

describe('store loaders under fuzzing (records with valid checksums)', () => {
  it(
    `journal: ${RUNS} crafted last records give a committed prefix or a typed error`,
    async () => {
      const base = await buildBase();
      const file = `${HOME}/sessions/${base.target}/journal.jsonl`;
      const journal = base.files.get(file) as Buffer;
      const lastLine = journal.subarray(journal.lastIndexOf(0x0a, journal.length - 2) + 1, journal.length - 1);
      const lastRecord = JSON.parse(`{${lastLine.toString('utf8').slice(lastLine.indexOf(0x2c) + 1)}`) as Record<
        string,
        unknown
      >;
      const next = base.state.lastSeq + 1;
      const record = fc.oneof(
        fc.object(),
        fc.record({
          v: fc.constant(1),
          epoch: fc.nat(3),
          first: fc.constant(next),
          last: fc.integer({ min: next, max: next + 2 }),
          events: fc.array(fc.jsonValue(), { maxLength: 3 }),
          summary: fc.jsonValue(),
        }),
        fc.tuple(fc.nat(), fc.jsonValue()).map(([seed, value]) => ({
          ...(edited(
            { ...lastRecord, first: next, last: next + Number(lastRecord.last) - Number(lastRecord.first) },
            seed,
            value,
          ) as object),
        })),
      );
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(record, async (crafted) => {
          await withFile(base, file, Buffer.concat([journal, frame(crafted)]), async (engine) => {
            const read = await valueOrRefusal(() => engine.readSession(base.target));
            if (ConclaveError.isInstance(read)) {
              refused += 1;
              return;
            }
            expect(contents(read).slice(0, base.state.messages.length)).toEqual(contents(base.state));
            expect(read.lastSeq).toBeGreaterThanOrEqual(base.state.lastSeq);
          });
        }),
        { numRuns: RUNS },
      );
      expect(refused).toBeGreaterThan(0);
    },
    sizedTimeout(60_000, 900_000),
  );

  it(
    `snapshot: ${RUNS} crafted snapshots are never used; the journal is replayed to the same state`,
    async () => {
      const base = await buildBase();
      const file = `${HOME}/sessions/${base.target}/snapshot.bin`;
      // Random files, random states, and the real state with one of its identity fields
      // (the header's id, lastSeq, the snapshot's seq or format) edited. A state edited
      // elsewhere behind a valid checksum is trusted today: see docs/reliability.md.
      const identityEdits = fc.constantFrom(
        (state: SessionState) => ({
          seq: state.lastSeq,
          formatVersion: 1,
          state: { ...state, lastSeq: state.lastSeq - 1 },
        }),
        (state: SessionState) => ({ seq: state.lastSeq, formatVersion: 2, state }),
        (state: SessionState) => ({
          seq: state.lastSeq + 5,
          formatVersion: 1,
          state: { ...state, lastSeq: state.lastSeq + 5 },
        }),
        (state: SessionState) => ({
          seq: state.lastSeq,
          formatVersion: 1,
          state: { ...state, header: { ...state.header, id: base.bystander } },
        }),
        (state: SessionState) => ({ seq: state.lastSeq, formatVersion: 1, state: { ...state, header: null } }),
      );
      const snapshot = fc.oneof(
        fc.object(),
        fc.record({ v: fc.constant(1), seq: fc.nat(20), formatVersion: fc.nat(3), state: fc.jsonValue() }),
        identityEdits.map((edit) => ({ v: 1, ...edit(base.state) })),
      );
      await fc.assert(
        fc.asyncProperty(snapshot, async (crafted) => {
          await withFile(base, file, frame(crafted), async (engine) => {
            // A well-formed snapshot of more events than the journal holds is evidence the
            // journal was cut: the session is reported damaged, never read shorter.
            const claimed = snapshotClaimSchema.safeParse(crafted);
            if (claimed.success && claimed.data.seq > base.state.lastSeq) {
              const refusal = await valueOrRefusal(() => engine.readSession(base.target));
              expect(JournalCorruptedError.isInstance(refusal)).toBe(true);
              expect((refusal as Error).message).toContain('it was cut');
              return;
            }
            expect(await engine.readSession(base.target)).toEqual(base.state);
          });
        }),
        { numRuns: RUNS },
      );
    },
    sizedTimeout(60_000, 900_000),
  );

  it(
    `listing index and header: ${RUNS} crafted files never change what is listed or break a session open`,
    async () => {
      const base = await buildBase();
      const indexFile = `${HOME}/index/summaries.json`;
      const headerFile = `${HOME}/sessions/${base.target}/header.json`;
      const expected = (await engineOn(base.disk.clone()).listSessions()).map(({ id, lastSeq, messageCount }) => ({
        id,
        lastSeq,
        messageCount,
      }));
      await fc.assert(
        fc.asyncProperty(
          fc.boolean(),
          fc.oneof(fc.object(), fc.record({ v: fc.constant(1), header: fc.jsonValue(), sessions: fc.jsonValue() })),
          async (index, crafted) => {
            await withFile(base, index ? indexFile : headerFile, frame(crafted), async (engine) => {
              if (index) {
                const listed = (await engine.listSessions()).map(({ id, lastSeq, messageCount }) => ({
                  id,
                  lastSeq,
                  messageCount,
                }));
                expect(listed).toEqual(expected);
              } else {
                const read = await valueOrRefusal(() => engine.readSession(base.target));
                if (!ConclaveError.isInstance(read)) expect(read).toEqual(base.state);
              }
            });
          },
        ),
        { numRuns: RUNS },
      );
    },
    sizedTimeout(60_000, 900_000),
  );
});
