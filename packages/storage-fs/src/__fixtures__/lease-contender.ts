// A contender for the lease race test: waits for the agreed start time, tries to take
// the lease once, prints `won <epoch>` or `locked <pid>`, then stays alive (holding
// what it won) until the parent kills it.
import { hostname } from 'node:os';
import { SessionLockedError } from '@resume/core/spec';
import { createFsStore } from '../fs-store.js';

const [dir, sessionId, startAt] = process.argv.slice(2);
if (!dir || !sessionId || !startAt) throw new Error('usage: lease-contender <dir> <session-id> <start-at-ms>');
const store = createFsStore({ dir });
await store.getHeader(sessionId); // warm up before the start line so contenders really overlap
process.stdout.write('ready\n');
while (Date.now() < Number(startAt)) {
  // spin: a timer would add up to a millisecond of skew between contenders
}
try {
  const lease = await store.acquireLease(sessionId, { holder: { pid: process.pid, host: hostname() } });
  process.stdout.write(`won ${lease.epoch}\n`);
} catch (error) {
  if (!SessionLockedError.isInstance(error)) throw error;
  process.stdout.write(`locked ${error.holder.pid}\n`);
}
setInterval(() => {}, 1_000);
