// node dist/run-order.js <home> <session-id> <marker-dir>
// Creates the session the first time and resumes it on every later call with the same id:
// the crash-and-rerun pattern is this one call to `engine.run`. A `postgres://` URL as the
// home keeps the session in that database instead (loaded only then).
import { createEngine, isSessionId, type SessionStore } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { orderJob } from './order-job.js';
import { markerFiles } from './side-effects.js';

const [home, sessionId, markers] = process.argv.slice(2);
if (!home || !sessionId || !isSessionId(sessionId) || !markers) {
  process.stderr.write('usage: node dist/run-order.js <home> <session-id> <marker-dir>\n');
  process.exit(64);
}

async function openStore(where: string): Promise<SessionStore> {
  if (!/^postgres(ql)?:\/\//.test(where)) return createFsStore({ dir: where });
  const { createPostgresStore } = await import('@resume/storage-postgres');
  return createPostgresStore({ connectionString: where, schema: 'orders' });
}

const engine = createEngine({ store: await openStore(home) });
try {
  const result = await engine.run({ id: sessionId, title: 'order A-17' }, (session) => {
    process.stdout.write('job-started\n');
    return orderJob(session, markerFiles(markers));
  });
  process.stdout.write(`result ${JSON.stringify(result)}\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await engine.close();
}
