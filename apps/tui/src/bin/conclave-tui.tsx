// `conclave-tui`: the session browser over the file store in $CONCLAVE_HOME (default
// ~/.conclave; `~` and relative paths expanded as the CLI expands them). Prints the command for the chosen session; `conclave tui` runs it instead.
import { homedir, hostname, userInfo } from 'node:os';
import { createEngine } from '@resume/core';
import { ConclaveError } from '@resume/core/spec';
import { defaultHome, expandHome } from '@resume/runner/home';
import { createFsStore } from '@resume/storage-fs';
import { createEngineBackend } from '../backend/engine-backend.js';
import { commandFor, openSessionBrowser } from '../browser/open-session-browser.js';

async function main(): Promise<number> {
  const userHome = homedir();
  const home = process.env.CONCLAVE_HOME
    ? expandHome(process.env.CONCLAVE_HOME, userHome, process.cwd())
    : defaultHome(userHome);
  const engine = createEngine({ store: createFsStore({ dir: home }) });
  try {
    // A question answered in the browser is journaled as from this user and machine.
    const answeredBy = `${userInfo().username}@${hostname()}`;
    const picked = await openSessionBrowser(createEngineBackend({ engine, answeredBy }), {
      noColor: process.argv.includes('--no-color'),
    });
    if (picked) process.stdout.write(`${commandFor(picked)}\n`);
    return 0;
  } finally {
    await engine.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (ConclaveError.isInstance(error)) {
      process.stderr.write(`Error: ${error.message}\n${error.hint ? `${error.hint}\n` : ''}`);
      process.exitCode = error.exitCode;
      return;
    }
    process.stderr.write(`Error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
