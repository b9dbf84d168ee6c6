// A writer for the crash test: takes the session's lease (a killed predecessor is
// taken over), then appends batches forever, printing `ack <seq>` after each append
// resolves. The parent SIGKILLs it at random moments and checks every acked batch. With a key
// (base64), the store seals what it writes (encryption at rest).
import { hostname } from 'node:os';
import { keyIdFor, parseDataKey } from '@resume/core/encryption';
import { testSummary } from '@resume/core/testing';
import { createFsStore } from '../fs-store.js';
import { crashEvent } from './crash-events.js';

const [dir, sessionId, keyText] = process.argv.slice(2);
if (!dir || !sessionId) throw new Error('usage: crash-writer <dir> <session-id> [<key>]');
const key = keyText ? parseDataKey(keyText, 'the key argument') : null;
const store = createFsStore({
  dir,
  ...(key ? { encryption: { keys: { [keyIdFor(key)]: key }, current: keyIdFor(key) } } : {}),
});
const lease = await store.acquireLease(sessionId, { holder: { pid: process.pid, host: hostname() } });
let lastSeq = (await store.getSummary(sessionId))?.lastSeq ?? 0;
process.stdout.write(`ready ${lastSeq}\n`);
for (;;) {
  const size = 1 + (lastSeq % 3);
  const events = Array.from({ length: size }, (_, index) => crashEvent(lastSeq + 1 + index));
  await store.append(sessionId, {
    expectedSeq: lastSeq,
    epoch: lease.epoch,
    events,
    summary: testSummary(sessionId, lastSeq + size),
  });
  lastSeq += size;
  process.stdout.write(`ack ${lastSeq}\n`);
}
