// Real processes, real SIGKILLs: a writer is killed at random moments while it
// appends, and every batch it had acknowledged must be there after a reopen, the
// journal always a clean prefix. `CONCLAVE_STRESS=1` (pnpm test:crash) kills 1,000+ times.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { generateDataKey, type KeyringOptions } from '@resume/core/encryption';
import { createProcessProbe, SessionLockedError } from '@resume/core/spec';
import { testHeader } from '@resume/core/testing';
import { type BundledChild, bundleChild, exited, onLines } from '@resume/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashEvent } from './__fixtures__/crash-events.js';
import { createFsStore, type FsStore } from './fs-store.js';

const stress = process.env.CONCLAVE_STRESS === '1';
const KILLS = stress ? 1_000 : 200;
/** The same run with encryption on: fewer kills by default (the plain run covers the timing; this one, the sealing). */
const ENCRYPTED_KILLS = stress ? 1_000 : 40;
const WORKERS = 2;
const KILLS_PER_SESSION = 25;

const fixture = (name: string) => new URL(`./__fixtures__/${name}.ts`, import.meta.url);

let writer: BundledChild;
let contender: BundledChild;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'conclave-crash-'));
  [writer, contender] = await Promise.all([
    bundleChild(fixture('crash-writer')),
    bundleChild(fixture('lease-contender')),
  ]);
});
afterAll(async () => {
  await Promise.all([writer?.remove(), contender?.remove(), rm(dir, { recursive: true, force: true })]);
});

async function newSession(store: FsStore): Promise<string> {
  const header = testHeader();
  await store.create(header);
  return header.id;
}

/** Runs the writer until it has acked `acks` batches (0: right after it took the lease), waits up to `delayMs`, kills it. */
async function runAndKill(id: string, acks: number, delayMs: number, keyText?: string): Promise<number> {
  const child = writer.spawn(keyText ? [dir, id, keyText] : [dir, id]);
  let acked = 0;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    let seen = -1;
    onLines(child.stdout, (line) => {
      const [kind, value] = line.split(' ');
      if (kind === 'ack') acked = Number(value);
      seen += 1;
      if (seen === acks) setTimeout(resolve, delayMs);
    });
    child.once('exit', () => reject(new Error(`the writer exited on its own: ${stderr}`)));
  });
  child.kill('SIGKILL');
  await exited(child);
  return acked;
}

/**
 * SIGKILLs writers `kills` times at random moments (sessions of `KILLS_PER_SESSION` kills each) and
 * checks after each kill that every acknowledged batch reads back, and nothing else.
 */
async function killRepeatedly(kills: number, encryption?: { keyText: string; keyring: KeyringOptions }) {
  const verifier = createFsStore({ dir, ...(encryption ? { encryption: encryption.keyring } : {}) });
  const ids: string[] = [];
  const worker = async (count: number) => {
    let id = await newSession(verifier);
    ids.push(id);
    let committed = 0;
    for (let kill = 0; kill < count; kill += 1) {
      if (kill > 0 && kill % KILLS_PER_SESSION === 0) {
        id = await newSession(verifier);
        ids.push(id);
        committed = 0;
      }
      const acked = await runAndKill(id, Math.floor(Math.random() * 6), Math.random() * 3, encryption?.keyText);
      const events = [];
      for await (const event of verifier.read(id, { fromSeq: committed + 1 })) events.push(event);
      const lastSeq = events.at(-1)?.seq ?? committed;
      expect(lastSeq).toBeGreaterThanOrEqual(Math.max(acked, committed));
      expect(events).toEqual(
        Array.from({ length: lastSeq - committed }, (_, index) => crashEvent(committed + 1 + index)),
      );
      committed = lastSeq;
    }
  };
  const perWorker = Math.ceil(kills / WORKERS);
  await Promise.all(Array.from({ length: WORKERS }, () => worker(perWorker)));
  await verifier.close();
  return ids;
}

describe('crash safety with real processes', () => {
  it(`loses nothing acknowledged across ${KILLS} SIGKILLs of a writer`, {
    timeout: stress ? 900_000 : 120_000,
  }, async () => {
    await killRepeatedly(KILLS);
  });

  it(`loses nothing acknowledged across ${ENCRYPTED_KILLS} SIGKILLs of a writer with encryption on`, {
    timeout: stress ? 900_000 : 120_000,
  }, async () => {
    const key = generateDataKey();
    const keyring = { keys: { [key.id]: key.key }, current: key.id };
    const ids = await killRepeatedly(ENCRYPTED_KILLS, { keyText: Buffer.from(key.key).toString('base64'), keyring });
    for (const id of ids) {
      const records = readFileSync(path.join(dir, 'sessions', id, 'journal.jsonl'), 'utf8')
        .trimEnd()
        .split('\n');
      for (const record of records.filter((line) => line.includes('"events"') || line.includes('"sealed"'))) {
        expect(JSON.parse(record)).toMatchObject({ key: key.id, sealed: expect.any(String) });
      }
    }
  });
});

describe('lease races between real processes', () => {
  async function race(id: string, contenders: number): Promise<{ outcomes: string[]; kill: () => Promise<void> }> {
    const startAt = Date.now() + 1_500;
    const children = Array.from({ length: contenders }, () => contender.spawn([dir, id, String(startAt)]));
    const outcomes = await Promise.all(
      children.map(
        (child) =>
          new Promise<string>((resolve, reject) => {
            onLines(child.stdout, (line) => {
              if (line !== 'ready') resolve(line);
            });
            child.once('exit', () => reject(new Error('a contender exited early')));
          }),
      ),
    );
    return {
      outcomes,
      kill: async () => {
        for (const child of children) child.kill('SIGKILL');
        await Promise.all(children.map((child) => exited(child)));
      },
    };
  }

  it("lets exactly one of several processes win a dead holder's lease", { timeout: 120_000 }, async () => {
    const store = createFsStore({ dir });
    const id = await newSession(store);
    const rounds = stress ? 20 : 3;
    let lastEpoch = 0;
    for (let round = 0; round < rounds; round += 1) {
      // Every round starts with a holder that was SIGKILLed (the previous round's winner).
      const { outcomes, kill } = await race(id, 4);
      await kill();
      const winners = outcomes.filter((outcome) => outcome.startsWith('won'));
      expect(winners).toHaveLength(1);
      const epoch = Number(winners[0]?.split(' ')[1]);
      expect(epoch).toBe(lastEpoch + 1);
      lastEpoch = epoch;
      const winnerLocked = outcomes.filter((outcome) => outcome.startsWith('locked'));
      expect(winnerLocked).toHaveLength(3);
    }
    await store.close();
  });

  it('never takes over a live holder', { timeout: 60_000 }, async () => {
    const store = createFsStore({ dir });
    const id = await newSession(store);
    const lease = await store.acquireLease(id, { holder: { pid: process.pid, host: hostname() } });
    const { outcomes, kill } = await race(id, 3);
    await kill();
    expect(outcomes).toEqual([`locked ${process.pid}`, `locked ${process.pid}`, `locked ${process.pid}`]);
    expect(await store.inspectLease(id)).toEqual(lease.holder);
    const error = await store
      .acquireLease(id, { holder: { pid: process.pid, host: hostname() } })
      .catch((caught: unknown) => caught);
    expect(SessionLockedError.isInstance(error)).toBe(true);
    await lease.release();
    await store.close();
  });

  /** The state letter of /proc/<pid>/stat (`Z` for a zombie), or null once the pid is gone. */
  const processState = (pid: number): string | null => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
    } catch {
      return null;
    }
  };

  it.skipIf(process.platform !== 'linux')(
    'takes over a holder that was killed but never reaped (a zombie)',
    { timeout: 60_000 },
    async () => {
      const store = createFsStore({ dir });
      const id = await newSession(store);
      // The holder's parent execs `sleep`, which never reaps it: once killed, the holder stays a zombie.
      const parent = spawn(
        'sh',
        ['-c', '"$0" "$@" & exec sleep 60', process.execPath, contender.outfile, dir, id, '0'],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      try {
        const outcome = await new Promise<string>((resolve) =>
          onLines(parent.stdout, (line) => {
            if (line !== 'ready') resolve(line);
          }),
        );
        expect(outcome).toMatch(/^won \d+$/);
        const holder = await store.inspectLease(id);
        expect(holder).not.toBeNull();
        const pid = holder?.pid ?? 0;
        process.kill(pid, 'SIGKILL');
        while (processState(pid) !== 'Z') await new Promise((resolve) => setTimeout(resolve, 10));
        // The pid still answers a signal, as a zombie does; it holds nothing.
        expect(() => process.kill(pid, 0)).not.toThrow();
        expect(await store.inspectLease(id)).toBeNull();
        const lease = await store.acquireLease(id, { holder: { pid: process.pid, host: hostname() } });
        expect(lease.epoch).toBe(Number(outcome.split(' ')[1]) + 1);
        await lease.release();
      } finally {
        parent.kill('SIGKILL');
        await exited(parent);
        await store.close();
      }
    },
  );

  it.skipIf(process.platform !== 'linux')(
    "takes over a live pid whose start time is not the holder's (the pid was reused), never the holder itself",
    async () => {
      const probe = createProcessProbe();
      const store = createFsStore({ dir });
      const id = await newSession(store);
      const live = await store.acquireLease(id, { holder: { pid: process.pid, host: hostname() } });
      // The real holder: its recorded start time matches this process.
      const locked = await store
        .acquireLease(id, { holder: { pid: process.pid, host: hostname() } })
        .catch((error: unknown) => error);
      expect(SessionLockedError.isInstance(locked)).toBe(true);
      await store.close();
      // The same pid, but the process it names started at another time than the holder recorded.
      const reused = createFsStore({
        dir,
        processProbe: { ...probe, startTime: (pid) => `${Number(probe.startTime(pid)) + 1}` },
      });
      const taken = await reused.acquireLease(id, { holder: { pid: process.pid, host: hostname() } });
      expect(taken.epoch).toBe(live.epoch + 1);
      await reused.close();
    },
  );
});
