// Simulated power loss under the real file store and engine: random command
// sequences (create, checkpoint batches of messages, snapshots, archive, delete)
// run on the simulated file system; the power goes out at a random operation;
// the disk keeps its durable state plus a random choice of unsynced sectors and
// directory changes. After the reboot every acknowledged batch must be there,
// an unacknowledged batch must be all there or not at all, nothing may read as
// garbage, and every surviving session must open, take new writes and list. The same runs
// with encryption at rest: the same guarantees, and no message in the clear on the disk.
import { createEngine, type Engine, type Session } from '@resume/core';
import { createKeyring, generateDataKey, type Keyring } from '@resume/core/encryption';
import { SessionNotFoundError } from '@resume/core/spec';
import { createFsStore } from '@resume/storage-fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bootProbe } from '../support/fake-process-probe.js';
import { seededRandom } from '../support/seeded-random.js';
import { isStress, sized, sizedTimeout } from '../support/stress.js';
import { PowerLossError, SimulatedFileSystem } from './simulated-file-system.js';

const HOME = '/conclave-home';

type Command =
  | { kind: 'create' }
  | { kind: 'checkpoint'; session: number; messages: number; size: number }
  | { kind: 'archive'; session: number }
  | { kind: 'delete'; session: number };

const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'create' as const }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('checkpoint' as const),
      session: fc.nat(5),
      messages: fc.integer({ min: 1, max: 3 }),
      size: fc.integer({ min: 0, max: 5000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('archive' as const), session: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), session: fc.nat(5) }) },
);

interface Tracked {
  id: string | null;
  /** Contents of messages whose checkpoint resolved. */
  acknowledged: string[];
  /** The batch whose checkpoint was in flight when the power went out. */
  inFlight: string[];
  createAcknowledged: boolean;
  deleteStarted: boolean;
  deleteAcknowledged: boolean;
  open: Session | null;
}

/** Whether the error is the power loss itself, or a store error caused by it. */
function isPowerLoss(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof PowerLossError) return true;
  }
  return false;
}

function messageText(session: number, index: number, size: number): string {
  const head = `session ${session} message ${index} `;
  return head + 'x'.repeat(size).replace(/x{64}/g, (match) => `${match.slice(1)}\n`);
}

const dataKey = generateDataKey();
const keyring = createKeyring({ keys: { [dataKey.id]: dataKey.key }, current: dataKey.id });

function engineOn(fileSystem: SimulatedFileSystem, bootId: string, encryption: Keyring | null = null): Engine {
  const store = createFsStore({
    dir: HOME,
    fileSystem: fileSystem.operationsView(),
    processProbe: bootProbe(bootId),
    ...(encryption ? { encryption } : {}),
  });
  // Frequent snapshots, so crashes also land in the middle of snapshot writes.
  return createEngine({ store, snapshotEvery: 7, holder: { pid: 4242, host: bootProbe(bootId).hostname } });
}

async function runUntilPowerLoss(engine: Engine, commands: Command[], tracked: Tracked[]): Promise<void> {
  let counter = 0;
  for (const command of commands) {
    if (command.kind === 'create') {
      const entry: Tracked = {
        id: null,
        acknowledged: [],
        inFlight: [],
        createAcknowledged: false,
        deleteStarted: false,
        deleteAcknowledged: false,
        open: null,
      };
      tracked.push(entry);
      const session = await engine.createSession({ title: `power ${tracked.length}`, mode: 'custom' });
      entry.id = session.id;
      entry.open = session;
      entry.createAcknowledged = true;
      continue;
    }
    const entry = tracked.filter((candidate) => candidate.createAcknowledged && !candidate.deleteStarted)[
      command.session % Math.max(1, tracked.length)
    ];
    if (!entry?.id) continue;
    if (command.kind === 'checkpoint') {
      entry.open ??= await engine.openSession(entry.id, { replay: 'keyed' });
      const batch: string[] = [];
      for (let index = 0; index < command.messages; index += 1) {
        counter += 1;
        batch.push(messageText(tracked.indexOf(entry), counter, command.size));
      }
      for (const content of batch) entry.open.addMessage({ role: 'user', content });
      entry.inFlight = batch;
      await entry.open.checkpoint(`batch ${counter}`);
      entry.acknowledged.push(...batch);
      entry.inFlight = [];
    } else if (command.kind === 'archive') {
      await entry.open?.close();
      entry.open = null;
      await engine.store.archive?.(entry.id);
    } else {
      await entry.open?.close();
      entry.open = null;
      entry.deleteStarted = true;
      await engine.deleteSession(entry.id);
      entry.deleteAcknowledged = true;
    }
  }
}

async function checkRecovered(engine: Engine, tracked: Tracked[]): Promise<void> {
  const listed = new Map((await engine.listSessions()).map((summary) => [summary.id, summary]));
  for (const entry of tracked) {
    if (!entry.id) continue;
    if (entry.deleteAcknowledged) {
      expect(await engine.store.getHeader(entry.id)).toBeNull();
      expect(listed.has(entry.id)).toBe(false);
      continue;
    }
    let messages: string[];
    try {
      const state = await engine.readSession(entry.id);
      messages = state.messages.map((message) => message.content);
    } catch (error) {
      // Only a session whose creation or deletion was never acknowledged may be missing.
      if (SessionNotFoundError.isInstance(error) && (!entry.createAcknowledged || entry.deleteStarted)) continue;
      throw error;
    }
    // A committed prefix: every acknowledged batch, then the in-flight batch whole or not at all.
    const allowed = [entry.acknowledged, [...entry.acknowledged, ...entry.inFlight]];
    expect(allowed).toContainEqual(messages);
    expect(listed.get(entry.id)?.messageCount).toBe(messages.length);

    // The session takes new writes after recovery (a torn tail was cut, the dead lease taken over),
    // appended after what survived rather than replayed against it.
    const reopened = await engine.openSession(entry.id, { replay: 'keyed' });
    reopened.addMessage({ role: 'user', content: 'after the reboot' });
    await reopened.checkpoint('after reboot');
    await reopened.close();
    const after = await engine.readSession(entry.id);
    expect(after.messages.map((message) => message.content)).toEqual([...messages, 'after the reboot']);
  }
}

/** The files of the disk that hold a message's text in the clear (none, with encryption on). */
function filesInTheClear(disk: SimulatedFileSystem): string[] {
  return [...disk.allFiles()]
    .filter(([, content]) => /session \d+ message \d+|after the reboot/.test(content.toString('latin1')))
    .map(([file]) => file);
}

describe('simulated power loss under the file store', () => {
  for (const encrypted of [false, true]) {
    const runs = encrypted ? sized(200, 2500) : sized(400, 5000);
    const encryption = encrypted ? keyring : null;
    it(
      `keeps a committed prefix of every session across ${runs} random crashes${encrypted ? ', encryption on' : ''}`,
      async () => {
        let tornWrites = 0;
        let crashesMidRun = 0;
        await fc.assert(
          fc.asyncProperty(
            fc.array(commandArbitrary, { minLength: 1, maxLength: isStress ? 40 : 20 }),
            fc.integer({ min: 1, max: 150 }),
            fc.integer(),
            fc.constantFrom(512, 4096),
            async (commands, crashAfter, seed, sectorSize) => {
              const disk = new SimulatedFileSystem();
              // A home that has been used before: its layout is on disk (first use is tested on its own).
              const first = engineOn(disk, 'boot-0', encryption);
              await first.listSessions();
              await first.close();
              disk.syncEverything();
              const before = engineOn(disk, 'boot-1', encryption);
              const tracked: Tracked[] = [];
              disk.failAfter(crashAfter);
              try {
                await runUntilPowerLoss(before, [{ kind: 'create' }, ...commands], tracked);
                disk.powerOff();
              } catch (error) {
                if (!isPowerLoss(error) && !disk.isDead) throw error;
                crashesMidRun += 1;
              }
              const rebooted = disk.crash({ random: seededRandom(seed), sectorSize });
              const crash = rebooted.lastCrash;
              if (crash && crash.sectorsLost > 0 && crash.sectorsKept > 0) tornWrites += 1;
              const after = engineOn(rebooted, 'boot-2', encryption);
              await checkRecovered(after, tracked);
              await after.close();
              if (encrypted) expect(filesInTheClear(rebooted)).toEqual([]);
            },
          ),
          { numRuns: runs },
        );
        // The runs must actually have crashed in the middle of work and torn writes, or they prove little.
        expect(crashesMidRun).toBeGreaterThan(runs / 4);
        expect(tornWrites).toBeGreaterThan(0);
        process.stderr.write(
          `power loss${encrypted ? ' (encrypted)' : ''}: ${runs} runs, ${crashesMidRun} crashes mid-run, ${tornWrites} torn writes\n`,
        );
      },
      sizedTimeout(60_000, 900_000),
    );
  }

  it('keeps a new home and its first session when the power goes out right after the first checkpoint', async () => {
    const disk = new SimulatedFileSystem();
    const before = engineOn(disk, 'boot-1');
    const session = await before.createSession({ title: 'first ever', mode: 'custom' });
    session.addMessage({ role: 'user', content: 'the first task' });
    await session.checkpoint('first');
    // Everything not explicitly made durable is lost.
    const after = engineOn(disk.crash({ random: () => 0 }), 'boot-2');
    const state = await after.readSession(session.id);
    expect(state.messages.map((message) => message.content)).toEqual(['the first task']);
  });
});
