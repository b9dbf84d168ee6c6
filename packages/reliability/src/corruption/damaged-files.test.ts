// Every cut and every single-byte change of every file the store keeps for a small
// session: the journal (plain and gzip-archived), the fold snapshot (plain and
// archived), the listing index, the header and the lease. Whatever the damage,
// reading returns exactly a committed prefix or a typed error naming the file,
// derived files (snapshot, index) are rebuilt from the journal without a trace,
// and the other session in the store is never touched. Runs on the simulated file
// system, so tens of thousands of cases stay fast.
import type { Engine } from '@resume/core';
import { ConclaveError, JournalCorruptedError, SessionNotFoundError } from '@resume/core/spec';
import { exitCodeFor } from '@resume/runner/exit-codes';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SimulatedFileSystem } from '../power-loss/simulated-file-system.js';
import { engineOnDisk, SIMULATED_HOME } from '../support/simulated-engine.js';
import { isStress } from '../support/stress.js';

const HOME = SIMULATED_HOME;
const engineOn = (disk: SimulatedFileSystem): Engine => engineOnDisk(disk, { snapshotEvery: 6 });

interface Base {
  disk: SimulatedFileSystem;
  target: string;
  bystander: string;
  /** The target's messages after each committed batch (journal record), in order. */
  messagesByRecord: string[][];
  targetState: unknown;
  bystanderMessages: string[];
}

async function buildBase(archived: boolean): Promise<Base> {
  const disk = new SimulatedFileSystem();
  const engine = engineOn(disk);
  const bystander = await engine.createSession({ title: 'bystander', mode: 'custom' });
  for (let index = 1; index <= 3; index += 1) {
    bystander.addMessage({ role: 'user', content: `bystander ${index}` });
    await bystander.checkpoint();
  }
  await bystander.close();
  const target = await engine.createSession({ title: 'target', mode: 'custom' });
  for (let index = 1; index <= 5; index += 1) {
    target.addMessage({ role: 'user', content: `question ${index}` });
    target.addMessage({ role: 'assistant', content: `answer ${index}`, speaker: 'analyst' });
    await target.checkpoint(`round ${index}`);
  }
  await target.complete();
  await target.close();
  if (archived) await engine.store.archive?.(target.id);
  await engine.close();
  disk.syncEverything();

  const reader = engineOn(disk.clone());
  const journal = disk.allFiles().get(`${HOME}/sessions/${target.id}/journal.jsonl`);
  const messagesByRecord: string[][] = [];
  if (journal) {
    const messages: string[] = [];
    for (const line of journal.toString('utf8').trimEnd().split('\n')) {
      const record = recordSchema.parse(JSON.parse(line));
      for (const event of record.events) if (event.message) messages.push(event.message.content);
      messagesByRecord.push([...messages]);
    }
  }
  const base: Base = {
    disk,
    target: target.id,
    bystander: bystander.id,
    messagesByRecord,
    targetState: await reader.readSession(target.id),
    bystanderMessages: (await reader.readSession(bystander.id)).messages.map((message) => message.content),
  };
  await reader.close();
  return base;
}

/** Just enough of a journal line to know which messages each committed batch holds. */
const recordSchema = z.object({
  events: z.array(z.object({ message: z.object({ content: z.string() }).optional() })),
});

type Damage = { kind: 'cut'; length: number } | { kind: 'flip'; position: number };

/** Every cut and flip from `from` on; `stride` > 1 samples every stride-th byte (CI size). */
function* everyDamage(size: number, from: number, stride: number): Generator<Damage> {
  for (let length = from; length < size; length += stride) yield { kind: 'cut', length };
  for (let position = from; position < size; position += stride) yield { kind: 'flip', position };
}

/** CI: every byte of the journal's last batches and every fourth byte of the other files; stress: every byte. */
const otherFilesStride = isStress ? 1 : 4;

function damaged(content: Buffer, damage: Damage): Buffer {
  if (damage.kind === 'cut') return Buffer.from(content.subarray(0, damage.length));
  const copy = Buffer.from(content);
  // A different bit each time, and sometimes a whole byte.
  copy[damage.position] =
    (copy[damage.position] ?? 0) ^ (damage.position % 9 === 8 ? 0xff : 1 << (damage.position % 8));
  return copy;
}

/** Runs `check` on a copy of the base disk with `file` damaged, for every cut and byte change of it. */
async function forEveryDamage(
  base: Base,
  file: string,
  check: (engine: Engine, damage: Damage) => Promise<void>,
  range: { from: number; stride: number } = { from: 0, stride: otherFilesStride },
): Promise<number> {
  const content = base.disk.allFiles().get(file);
  if (!content) throw new Error(`the base store has no ${file}`);
  let cases = 0;
  for (const damage of everyDamage(content.length, range.from, range.stride)) {
    const disk = base.disk.clone();
    disk.plantFile(file, damaged(content, damage));
    const engine = engineOn(disk);
    try {
      await check(engine, damage);
      // The other session never notices.
      const bystander = await engine.readSession(base.bystander);
      expect(bystander.messages.map((message) => message.content)).toEqual(base.bystanderMessages);
    } catch (error) {
      throw new Error(`${file} ${damage.kind} at ${damage.kind === 'cut' ? damage.length : damage.position}`, {
        cause: error,
      });
    } finally {
      await engine.close();
    }
    cases += 1;
  }
  return cases;
}

const contents = (state: { messages: { content: string }[] }) => state.messages.map((message) => message.content);

describe('every cut and byte change of every store file', () => {
  it('journal: a committed prefix or a typed error with file and offset; repair then opens', async () => {
    const base = await buildBase(false);
    const file = `${HOME}/sessions/${base.target}/journal.jsonl`;
    const committedPrefixes = [[], ...base.messagesByRecord];
    const journal = base.disk.allFiles().get(file) ?? Buffer.alloc(0);
    const firstRecordLength = journal.indexOf(0x0a) + 1;
    // CI: every byte of the last two batches; stress: every byte of the whole journal.
    const lastBatchesStart = journal.lastIndexOf(0x0a, journal.lastIndexOf(0x0a, journal.length - 2) - 1) + 1;
    let typedErrors = 0;
    const cases = await forEveryDamage(
      base,
      file,
      async (engine, damage) => {
        // Damage to the very first record (the session's creation) leaves no session to salvage.
        const inFirstRecord = (damage.kind === 'cut' ? damage.length : damage.position) < firstRecordLength;
        let messages: string[];
        try {
          messages = contents(await engine.readSession(base.target));
        } catch (error) {
          if (SessionNotFoundError.isInstance(error) && inFirstRecord) return;
          expect(JournalCorruptedError.isInstance(error)).toBe(true);
          const corrupted = error as JournalCorruptedError;
          expect(corrupted.message).toContain(file);
          expect(exitCodeFor(corrupted)).toBe(65);
          typedErrors += 1;
          await engine.store.repair?.(base.target);
          try {
            messages = contents(await engine.readSession(base.target));
          } catch (afterRepair) {
            expect(SessionNotFoundError.isInstance(afterRepair)).toBe(true);
            expect(inFirstRecord).toBe(true);
            return;
          }
        }
        expect(committedPrefixes).toContainEqual(messages);
        // Whatever was recovered takes new writes (appended after it, not replayed against it);
        // a repair that recovered the whole session (a final record whose newline alone was cut)
        // finds it completed, which takes no more writes.
        if ((await engine.readSession(base.target)).status === 'completed') {
          expect(messages).toEqual(committedPrefixes.at(-1));
          return;
        }
        const session = await engine.openSession(base.target, { replay: 'keyed' });
        session.addMessage({ role: 'user', content: 'after the damage' });
        await session.checkpoint();
        await session.close();
        expect(contents(await engine.readSession(base.target))).toEqual([...messages, 'after the damage']);
      },
      { from: isStress ? 0 : lastBatchesStart, stride: 1 },
    );
    expect(typedErrors).toBeGreaterThan(0);
    process.stderr.write(`damaged journal: ${cases} cases, ${typedErrors} reported as corruption\n`);
  }, 600_000);

  it('archived journal (.gz): the whole session or a typed error, never other data', async () => {
    const base = await buildBase(true);
    const file = `${HOME}/sessions/${base.target}/journal.jsonl.gz`;
    const full = contents(base.targetState as { messages: { content: string }[] });
    const cases = await forEveryDamage(base, file, async (engine) => {
      try {
        expect(contents(await engine.readSession(base.target))).toEqual(full);
      } catch (error) {
        if (!ConclaveError.isInstance(error)) throw error;
        expect(JournalCorruptedError.isInstance(error)).toBe(true);
        expect(error.message).toContain(base.target);
      }
    });
    process.stderr.write(`damaged archived journal: ${cases} cases\n`);
  }, 600_000);

  for (const archived of [false, true]) {
    const name = archived ? 'snapshot.bin.gz' : 'snapshot.bin';
    it(`${name}: ignored when damaged, the journal replayed to the same state`, async () => {
      const base = await buildBase(archived);
      const cases = await forEveryDamage(base, `${HOME}/sessions/${base.target}/${name}`, async (engine) => {
        expect(await engine.readSession(base.target)).toEqual(base.targetState);
      });
      process.stderr.write(`damaged ${name}: ${cases} cases\n`);
    }, 600_000);
  }

  it('listing index: rebuilt from the journals, the listing unchanged', async () => {
    const base = await buildBase(false);
    const undamaged = engineOn(base.disk.clone());
    const expected = (await undamaged.listSessions()).map(({ id, title, status, messageCount, lastSeq }) => ({
      id,
      title,
      status,
      messageCount,
      lastSeq,
    }));
    await undamaged.close();
    expect(expected).toHaveLength(2);
    const cases = await forEveryDamage(base, `${HOME}/index/summaries.json`, async (engine) => {
      const listed = (await engine.listSessions()).map(({ id, title, status, messageCount, lastSeq }) => ({
        id,
        title,
        status,
        messageCount,
        lastSeq,
      }));
      expect(listed).toEqual(expected);
    });
    process.stderr.write(`damaged index: ${cases} cases\n`);
  }, 600_000);

  it('header: the session or a typed error naming the file', async () => {
    const base = await buildBase(false);
    const file = `${HOME}/sessions/${base.target}/header.json`;
    const cases = await forEveryDamage(base, file, async (engine) => {
      try {
        expect(await engine.readSession(base.target)).toEqual(base.targetState);
      } catch (error) {
        if (!ConclaveError.isInstance(error)) throw error;
        expect(error.message).toContain(base.target);
      }
    });
    process.stderr.write(`damaged header: ${cases} cases\n`);
  }, 600_000);

  it('lease: a damaged lease never locks the session for good', async () => {
    const base = await buildBase(false);
    const leaseFiles = [...base.disk.allFiles().keys()].filter((file) =>
      file.startsWith(`${HOME}/sessions/${base.target}/lease/epoch-`),
    );
    expect(leaseFiles.length).toBeGreaterThan(0);
    let cases = 0;
    for (const file of isStress ? leaseFiles : leaseFiles.slice(-1)) {
      cases += await forEveryDamage(base, file, async (engine) => {
        const session = await engine.openSession(base.target, { countRecovery: false });
        await session.close();
      });
    }
    process.stderr.write(`damaged lease: ${cases} cases\n`);
  }, 600_000);
});
