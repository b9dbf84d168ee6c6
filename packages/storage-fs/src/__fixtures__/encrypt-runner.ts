// Converts one session to encryption at rest (`store.encrypt`), for the test that SIGKILLs it at
// random moments: prints `done` when the conversion returned.
import { keyIdFor, parseDataKey } from '@resume/core/encryption';
import { createFsStore } from '../fs-store.js';

const [dir, sessionId, keyText] = process.argv.slice(2);
if (!dir || !sessionId || !keyText) throw new Error('usage: encrypt-runner <dir> <session-id> <key>');
const key = parseDataKey(keyText, 'the key argument');
const store = createFsStore({ dir, encryption: { keys: { [keyIdFor(key)]: key }, current: keyIdFor(key) } });
process.stdout.write('ready\n');
await store.encrypt(sessionId);
await store.close();
process.stdout.write('done\n');
