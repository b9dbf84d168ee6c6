// Checkpoint cost, side by side: the engine over the file store (`addMessage` of
// ~2 KB + `checkpoint()`), a raw `write + fdatasync` of the same bytes, and the
// source documents' design (rewrite the whole session JSON atomically: temp file,
// fsync, rename, directory fsync), at several journal lengths.
import { closeSync, fdatasyncSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { payload, timeEach } from './measure.mjs';

async function engineCheckpoint(home, events, iterations) {
  const store = createFsStore({ dir: home });
  const engine = createEngine({ store });
  const session = await engine.createSession({ title: `bench ${events}`, mode: 'custom' });
  for (let index = 1; index < events; index += 1) {
    session.addMessage({ role: 'assistant', content: payload(index) });
    if (index % 200 === 0) await session.checkpoint();
  }
  await session.checkpoint();
  const bytesBefore = (await store.getSummary(session.id))?.bytes ?? 0;
  const result = await timeEach(iterations, async (index) => {
    session.addMessage({ role: 'assistant', content: payload(events + index) });
    await session.checkpoint();
  });
  const bytesAfter = (await store.getSummary(session.id))?.bytes ?? 0;
  await session.close();
  await engine.close();
  await store.close();
  return { ...result, bytesPerCheckpoint: Math.round((bytesAfter - bytesBefore) / iterations) };
}

function rawAppend(directory, events, iterations, bytesPerAppend) {
  const file = path.join(directory, 'raw.jsonl');
  const fd = openSync(file, 'a', 0o600);
  const line = Buffer.alloc(bytesPerAppend, 0x61);
  line[line.length - 1] = 0x0a;
  for (let index = 0; index < events; index += 1) writeSync(fd, line);
  fdatasyncSync(fd);
  const result = timeEach(iterations, () => {
    writeSync(fd, line);
    fdatasyncSync(fd);
  });
  return result.finally(() => closeSync(fd));
}

/** The same raw append through the asynchronous API an async Node program uses (FileHandle write + datasync). */
async function rawAppendAsync(directory, events, iterations, bytesPerAppend) {
  const handle = await open(path.join(directory, 'raw-async.jsonl'), 'a', 0o600);
  const line = Buffer.alloc(bytesPerAppend, 0x61);
  line[line.length - 1] = 0x0a;
  for (let index = 0; index < events; index += 1) await handle.write(line);
  await handle.datasync();
  try {
    return await timeEach(iterations, async () => {
      await handle.write(line);
      await handle.datasync();
    });
  } finally {
    await handle.close();
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
    await engineCheckpoint(path.join(scratch, 'home'), 10, iterations);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const rows = [];
  for (const events of sizes) {
    const directory = await mkdtemp(path.join(tmpdir(), 'conclave-bench-'));
    try {
      const engine = await engineCheckpoint(path.join(directory, 'home'), events, iterations);
      // The raw baseline writes exactly as many bytes as one checkpoint appended to the journal.
      const raw = await rawAppend(directory, events, iterations, engine.bytesPerCheckpoint);
      const rawAsync = await rawAppendAsync(directory, events, iterations, engine.bytesPerCheckpoint);
      const rewrite = await atomicRewrite(directory, events, events >= 10_000 ? Math.min(iterations, 15) : iterations);
      rows.push({ events, engine, raw, rawAsync, rewrite });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
  return rows;
}
