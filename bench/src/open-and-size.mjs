// Opening a long session (lease + snapshot + fold of the rest) and what it costs on
// disk compared with the JSON of its events.
import { statSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { payload } from './measure.mjs';

// A full collection on demand, without starting Node with --expose-gc: heap growth is what an
// opened session keeps alive, read after collecting what the open threw away.
v8.setFlagsFromString('--expose-gc');
export const collectGarbage = vm.runInNewContext('gc');

async function directoryBytes(directory) {
  let total = 0;
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    total += entry.isDirectory() ? await directoryBytes(full) : (await stat(full)).size;
  }
  return total;
}

export async function measureOpenAndSize({ messages, repeats }) {
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-bench-open-'));
  try {
    const home = path.join(directory, 'home');
    const writer = createEngine({ store: createFsStore({ dir: home }) });
    const session = await writer.createSession({ title: 'open bench', mode: 'custom' });
    // The checkpoints that also wrote the session's snapshot (inline, every 1,000 events), timed
    // in the second half of the session, against the other checkpoints of that half.
    const snapshotFile = path.join(home, 'sessions', session.id, 'snapshot.bin');
    const snapshotStamp = () => statSync(snapshotFile, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    const checkpointTimes = { snapshot: [], plain: [] };
    for (let index = 0; index < messages; index += 1) {
      session.addMessage({ role: 'assistant', content: payload(index) });
      const stamp = index >= messages / 2 ? snapshotStamp() : 0;
      const start = performance.now();
      await session.checkpoint();
      const elapsed = performance.now() - start;
      if (index >= messages / 2) checkpointTimes[snapshotStamp() === stamp ? 'plain' : 'snapshot'].push(elapsed);
    }
    await session.close();
    await writer.close();

    // Two ways to open: `keyed` (the CLI's resume path) folds from the snapshot and reads the
    // journal's tail only; `ordered` (a library job re-run) also reads the whole journal, which is
    // its replay log. Measured alternately in the same run.
    const timings = { keyed: [], ordered: [] };
    // Heap growth as before (`heapUsed`), and with the buffers the opened session keeps
    // (`arrayBuffers`: a snapshot's message texts stay in their file's bytes until read).
    const heapDelta = { keyed: 0, ordered: 0 };
    const retainedDelta = { keyed: 0, ordered: 0 };
    // Reading every message's text once after the open (what a reader of the whole transcript pays on top).
    const touchTimings = { keyed: [], ordered: [] };
    for (let repeat = 0; repeat < repeats; repeat += 1) {
      for (const replay of ['keyed', 'ordered']) {
        collectGarbage();
        const memoryBefore = process.memoryUsage();
        const start = performance.now();
        const engine = createEngine({ store: createFsStore({ dir: home }) });
        const opened = await engine.openSession(session.id, { countRecovery: false, replay });
        const count = opened.state.messages.length;
        timings[replay].push(performance.now() - start);
        collectGarbage(); // `opened` is still in use below: what it holds stays counted
        const memoryAfter = process.memoryUsage();
        heapDelta[replay] = Math.max(heapDelta[replay], memoryAfter.heapUsed - memoryBefore.heapUsed);
        retainedDelta[replay] = Math.max(
          retainedDelta[replay],
          memoryAfter.heapUsed + memoryAfter.arrayBuffers - memoryBefore.heapUsed - memoryBefore.arrayBuffers,
        );
        if (count !== messages) throw new Error(`opened ${count} messages, expected ${messages}`);
        const touchStart = performance.now();
        let characters = 0;
        for (const message of opened.state.messages) characters += message.content.length;
        touchTimings[replay].push(performance.now() - touchStart);
        if (characters === 0) throw new Error('opened messages without text');
        await opened.close();
        await engine.close();
      }
    }
    const middle = (samples) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

    const reader = createFsStore({ dir: home });
    let eventJsonBytes = 0;
    for await (const event of reader.read(session.id)) eventJsonBytes += Buffer.byteLength(JSON.stringify(event));
    await reader.close();
    const sessionDirectory = path.join(home, 'sessions', session.id);
    const journalBytes = (await stat(path.join(sessionDirectory, 'journal.jsonl'))).size;
    const diskBytes = await directoryBytes(sessionDirectory);
    return {
      messages,
      openMedianMs: middle(timings.keyed),
      heapDeltaBytes: heapDelta.keyed,
      retainedDeltaBytes: retainedDelta.keyed,
      touchMedianMs: middle(touchTimings.keyed),
      orderedOpenMedianMs: middle(timings.ordered),
      orderedHeapDeltaBytes: heapDelta.ordered,
      orderedRetainedDeltaBytes: retainedDelta.ordered,
      orderedTouchMedianMs: middle(touchTimings.ordered),
      snapshotCheckpointMedianMs: middle(checkpointTimes.snapshot),
      plainCheckpointMedianMs: middle(checkpointTimes.plain),
      eventJsonBytes,
      journalBytes,
      diskBytes,
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
