// A disk that fills up at every write of a run, on the simulated file system: the run stops
// with a typed error (exit 74) naming the store and the free space; while the disk is full
// the session still lists and reads; once space returns it resumes with every acknowledged
// checkpoint and nothing repeated. Snapshot and index writes are best-effort: a full disk
// there never fails a checkpoint.
import type { Engine, Session } from '@resume/core';
import { createEngine } from '@resume/core';
import { ConclaveError, StoreFullError } from '@resume/core/spec';
import { ExitCode, exitCodeFor } from '@resume/runner/exit-codes';
import type { FileSystem } from '@resume/storage-fs';
import { createFsStore } from '@resume/storage-fs';
import { describe, expect, it } from 'vitest';
import { SimulatedFileSystem } from '../power-loss/simulated-file-system.js';
import { bootProbe } from '../support/fake-process-probe.js';
import { engineOnDisk, SIMULATED_HOME } from '../support/simulated-engine.js';

const ROUNDS = 6;
const engineOn = (disk: SimulatedFileSystem): Engine => engineOnDisk(disk, { snapshotEvery: 3 });

interface RunOutcome {
  id: string | null;
  acknowledged: string[];
  inFlight: string[];
  error: unknown;
}

/** One run: a session, then ROUNDS checkpoints of a question and an answer, then completion. */
async function run(engine: Engine): Promise<RunOutcome> {
  const outcome: RunOutcome = { id: null, acknowledged: [], inFlight: [], error: null };
  let session: Session | null = null;
  try {
    session = await engine.createSession({ title: 'filling up', mode: 'custom' });
    outcome.id = session.id;
    for (let round = 1; round <= ROUNDS; round += 1) {
      const batch = [`question ${round} ${'q'.repeat(300)}`, `answer ${round} ${'a'.repeat(900)}`];
      session.addMessage({ role: 'user', content: batch[0] as string });
      session.addMessage({ role: 'assistant', content: batch[1] as string });
      outcome.inFlight = batch;
      await session.checkpoint(`round ${round}`);
      outcome.acknowledged.push(...batch);
      outcome.inFlight = [];
    }
    await session.complete();
  } catch (error) {
    outcome.error = error;
  }
  await session?.close().catch(() => {});
  await engine.close().catch(() => {});
  return outcome;
}

const messagesOf = async (engine: Engine, id: string) =>
  (await engine.readSession(id)).messages.map((message) => message.content);

describe('a full disk at every write of a run', () => {
  it('stops with a typed error, stays readable while full, resumes with nothing acknowledged lost', async () => {
    const measured = new SimulatedFileSystem();
    const first = engineOn(measured);
    await first.listSessions();
    await first.close();
    const base = measured.clone();
    const before = measured.spaceWrites;
    const clean = await run(engineOn(measured));
    expect(clean.error).toBeNull();
    const writesPerRun = measured.spaceWrites - before;
    expect(writesPerRun).toBeGreaterThan(20);

    let typedStops = 0;
    let survivedBestEffort = 0;
    for (let fullAt = 1; fullAt <= writesPerRun; fullAt += 1) {
      const disk = base.clone();
      disk.fillAfter(fullAt);
      const outcome = await run(engineOn(disk));
      const where = `disk full at write ${fullAt}`;
      if (outcome.error === null) {
        // Only a best-effort write (a snapshot, the listing index) met the full disk.
        survivedBestEffort += 1;
      } else {
        expect(StoreFullError.isInstance(outcome.error), `${where}: ${String(outcome.error)}`).toBe(true);
        const error = outcome.error as StoreFullError;
        expect(exitCodeFor(error)).toBe(ExitCode.storeFull);
        expect(error.message).toContain(SIMULATED_HOME);
        expect(error.message).toContain('0 B free');
        typedStops += 1;
      }

      // Still full: listing and reading work (they never need to write).
      const reader = engineOn(disk);
      const listed = await reader.listSessions();
      if (outcome.id && outcome.acknowledged.length > 0) {
        expect(
          listed.map((summary) => summary.id),
          where,
        ).toContain(outcome.id);
        const read = await messagesOf(reader, outcome.id);
        expect([outcome.acknowledged, [...outcome.acknowledged, ...outcome.inFlight]], where).toContainEqual(read);
      }
      await reader.close();

      // Space comes back: the session resumes where it stopped.
      disk.makeRoom();
      if (!outcome.id || outcome.acknowledged.length === 0) continue;
      const resumer = engineOn(disk);
      const resumed = await resumer.openSession(outcome.id, { replay: 'keyed' });
      const kept = resumed.state.messages.map((message) => message.content);
      expect([outcome.acknowledged, [...outcome.acknowledged, ...outcome.inFlight]], where).toContainEqual(kept);
      if (resumed.state.status === 'completed') {
        // Only a best-effort write after completion met the full disk: nothing left to resume.
        await resumed.close();
        await resumer.close();
        continue;
      }
      resumed.addMessage({ role: 'user', content: 'after space returned' });
      await resumed.checkpoint();
      await resumed.close();
      expect(await messagesOf(resumer, outcome.id), where).toEqual([...kept, 'after space returned']);
      await resumer.close();
    }
    expect(typedStops).toBeGreaterThan(10);
    expect(survivedBestEffort).toBeGreaterThan(0);
    process.stderr.write(
      `disk full: ${writesPerRun} write positions, ${typedStops} typed stops, ${survivedBestEffort} best-effort writes refused without failing the run\n`,
    );
  }, 120_000);

  it('a snapshot that cannot be written never fails a checkpoint', async () => {
    const disk = new SimulatedFileSystem();
    const view = disk.operationsView();
    let refused = 0;
    const noSnapshots: FileSystem = {
      ...view,
      createExclusive: (target) => {
        if (target.includes('snapshot.bin')) {
          refused += 1;
          return Promise.reject(Object.assign(new Error(`ENOSPC: open '${target}'`), { code: 'ENOSPC' }));
        }
        return view.createExclusive(target);
      },
    };
    const engine = createEngine({
      store: createFsStore({ dir: SIMULATED_HOME, fileSystem: noSnapshots, processProbe: bootProbe('boot-snapshots') }),
      snapshotEvery: 2,
      holder: { pid: 4242, host: bootProbe('').hostname },
    });
    const outcome = await run(engine);
    expect(outcome.error).toBeNull();
    expect(refused).toBeGreaterThan(0);
    const reader = engineOn(disk);
    expect(await messagesOf(reader, outcome.id ?? '')).toEqual(outcome.acknowledged);
    await reader.close();
  });

  it('a full disk is reported with the store, the path and the free space, and its own exit code', () => {
    const error = new StoreFullError({ path: '/home/sessions/x/journal.jsonl', location: '/home', freeBytes: 2048 });
    expect(ConclaveError.isInstance(error)).toBe(true);
    expect(error.code).toBe('store-full');
    expect(exitCodeFor(error)).toBe(74);
    expect(error.message).toContain('/home');
    expect(error.message).toContain('2.0 KB free');
    expect(error.hint).toContain('Free some space');
  });
});
