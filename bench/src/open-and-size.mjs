// Opening a long session (lease + snapshot + fold of the rest) and what it costs on
// disk compared with the JSON of its events.
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
const collectGarbage = vm.runInNewContext('gc');

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
    for (let index = 0; index < messages; index += 1) {
      session.addMessage({ role: 'assistant', content: payload(index) });
      await session.checkpoint();
    }
    await session.close();
    await writer.close();

    // Two ways to open: `keyed` (the CLI's resume path) folds from the snapshot and reads the
    // journal's tail only; `ordered` (a library job re-run) also reads the whole journal, which is
    // its replay log. Measured alternately in the same run.
    const timings = { keyed: [], ordered: [] };
    const heapDelta = { keyed: 0, ordered: 0 };
    for (let repeat = 0; repeat < repeats; repeat += 1) {
      for (const replay of ['keyed', 'ordered']) {
        collectGarbage();
        const heapBefore = process.memoryUsage().heapUsed;
        const start = performance.now();
        const engine = createEngine({ store: createFsStore({ dir: home }) });
        const opened = await engine.openSession(session.id, { countRecovery: false, replay });
        const count = opened.state.messages.length;
        timings[replay].push(performance.now() - start);
        collectGarbage(); // `opened` is still in use below: what it holds stays counted
        heapDelta[replay] = Math.max(heapDelta[replay], process.memoryUsage().heapUsed - heapBefore);
        if (count !== messages) throw new Error(`opened ${count} messages, expected ${messages}`);
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
      orderedOpenMedianMs: middle(timings.ordered),
      orderedHeapDeltaBytes: heapDelta.ordered,
      eventJsonBytes,
      journalBytes,
      diskBytes,
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
