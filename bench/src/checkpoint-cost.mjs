// Checkpoint cost, side by side: the engine over the file store (`addMessage` of
// ~2 KB + `checkpoint()`) and a raw `write + fdatasync` of the same bytes, taking turns
// sample by sample, and the source documents' design (rewrite the whole session JSON
// atomically: temp file, fsync, rename, directory fsync), at several journal lengths. The
// engine also runs over a store with space limits set (far above what it writes), so the cost
// of keeping the running totals shows beside the same checkpoint without them.
import { closeSync, fdatasyncSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { payload, timeEach } from './measure.mjs';

/** A session of `events` ~2 KB messages through the engine over the file store, ready for more checkpoints. */
async function engineSession(home, events, quota) {
  const store = createFsStore({ dir: home, ...(quota ? { quota } : {}) });
  const engine = createEngine({ store });
  const session = await engine.createSession({ title: `bench ${events}`, mode: 'custom' });
  for (let index = 1; index < events; index += 1) {
    session.addMessage({ role: 'assistant', content: payload(index) });
    if (index % 200 === 0) await session.checkpoint();
  }
  await session.checkpoint();
  return {
    store,
    session,
    bytes: async () => (await store.getSummary(session.id))?.bytes ?? 0,
    close: async () => {
      await session.close();
      await engine.close();
      await store.close();
    },
  };
}

/** A journal-like file of `events` lines of `bytes` each, appended to by `writeSync` + `fdatasyncSync`. */
function rawSyncFile(file, events, bytes) {
  const fd = openSync(file, 'a', 0o600);
  const line = Buffer.alloc(bytes, 0x61);
  line[line.length - 1] = 0x0a;
  for (let index = 0; index < events; index += 1) writeSync(fd, line);
  fdatasyncSync(fd);
  return {
    append: () => {
      writeSync(fd, line);
      fdatasyncSync(fd);
    },
    close: () => closeSync(fd),
  };
}

/** The same through the asynchronous API an async Node program uses (FileHandle write + datasync). */
async function rawAsyncFile(file, events, bytes) {
  const handle = await open(file, 'a', 0o600);
  const line = Buffer.alloc(bytes, 0x61);
  line[line.length - 1] = 0x0a;
  for (let index = 0; index < events; index += 1) await handle.write(line);
  await handle.datasync();
  return {
    append: async () => {
      await handle.write(line);
      await handle.datasync();
    },
    close: () => handle.close(),
  };
}

function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((sum, sample) => sum + sample, 0) / samples.length;
  return { median: sorted[Math.floor(sorted.length / 2)], mean, iterations: samples.length };
}

/**
 * The engine's checkpoint (`addMessage` of ~2 KB + `checkpoint()`) and the raw appends of the same
 * bytes, taking turns sample by sample (the order rotating), so the disk's and the machine's
 * moods hit all three alike; each message is made before its clock starts.
 */
async function checkpointsSideBySide(directory, events, iterations) {
  const engine = await engineSession(path.join(directory, 'home'), events);
  const TiB = 1024 ** 4;
  const limited = await engineSession(path.join(directory, 'limited-home'), events, {
    maxHomeBytes: TiB,
    maxSessionBytes: TiB,
  });
  const raws = [];
  try {
    // Bytes one checkpoint appends to the journal, from a few checkpoints before the measured ones.
    const warmups = 5;
    const bytesBefore = await engine.bytes();
    for (let index = 0; index < warmups; index += 1) {
      engine.session.addMessage({ role: 'assistant', content: payload(events + index) });
      await engine.session.checkpoint();
      limited.session.addMessage({ role: 'assistant', content: payload(events + index) });
      await limited.session.checkpoint();
    }
    const bytesPerCheckpoint = Math.round(((await engine.bytes()) - bytesBefore) / warmups);
    const raw = rawSyncFile(path.join(directory, 'raw.jsonl'), events, bytesPerCheckpoint);
    raws.push(raw);
    const rawAsync = await rawAsyncFile(path.join(directory, 'raw-async.jsonl'), events, bytesPerCheckpoint);
    raws.push(rawAsync);
    const samples = { engine: [], limited: [], raw: [], rawAsync: [] };
    const contenders = [
      [
        'engine',
        async (content) => {
          engine.session.addMessage({ role: 'assistant', content });
          await engine.session.checkpoint();
        },
      ],
      [
        'limited',
        async (content) => {
          limited.session.addMessage({ role: 'assistant', content });
          await limited.session.checkpoint();
        },
      ],
      // Synchronous like the journal's lone append: no promise, no await.
      ['raw', () => raw.append()],
      ['rawAsync', () => rawAsync.append()],
    ];
    for (let index = 0; index < iterations; index += 1) {
      const content = payload(events + warmups + index);
      for (let turn = 0; turn < contenders.length; turn += 1) {
        const [name, append] = contenders[(index + turn) % contenders.length];
        const start = performance.now();
        const pending = append(content);
        if (pending) await pending;
        samples[name].push((performance.now() - start) * 1000);
      }
    }
    return {
      engine: { ...summarize(samples.engine), bytesPerCheckpoint },
      limited: summarize(samples.limited),
      raw: summarize(samples.raw),
      rawAsync: summarize(samples.rawAsync),
    };
  } finally {
    for (const raw of raws) await raw.close();
    await engine.close();
    await limited.close();
  }
}

function atomicRewrite(directory, events, iterations) {
  const target = path.join(directory, 'session.json');
  const session = { id: 'bench', messages: [] };
  for (let index = 0; index < events; index += 1) session.messages.push({ role: 'assistant', content: payload(index) });
  return timeEach(iterations, (index) => {
    session.messages.push({ role: 'assistant', content: payload(events + index) });
    const temporary = `${target}.tmp`;
    const fd = openSync(temporary, 'w', 0o600);
    writeSync(fd, JSON.stringify(session));
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temporary, target);
    const directoryFd = openSync(directory, 'r');
    fsyncSync(directoryFd);
    closeSync(directoryFd);
  });
}

export async function measureCheckpointCost({ sizes, iterations }) {
  // Warm-up in a throw-away session, so the first row is not the one paying for JIT compilation.
  const scratch = await mkdtemp(path.join(tmpdir(), 'conclave-bench-warmup-'));
  try {
    await checkpointsSideBySide(scratch, 10, iterations);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const rows = [];
  for (const events of sizes) {
    const directory = await mkdtemp(path.join(tmpdir(), 'conclave-bench-'));
    try {
      // The raw baselines write exactly as many bytes as one checkpoint appended to the journal.
      const { engine, limited, raw, rawAsync } = await checkpointsSideBySide(directory, events, iterations);
      const rewrite = await atomicRewrite(directory, events, events >= 10_000 ? Math.min(iterations, 15) : iterations);
      rows.push({ events, engine, limited, raw, rawAsync, rewrite });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
  return rows;
}
