// `conclave-tui`: the session browser over the file store in $CONCLAVE_HOME (default
// ~/.conclave; `~` and relative paths expanded as the CLI expands them). Prints the command for the chosen session; `conclave tui` runs it instead.
import { homedir, hostname, userInfo } from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '@resume/core';
import { ConclaveError } from '@resume/core/spec';
import type { createPlanner } from '@resume/runner';
import { exitCodeFor } from '@resume/runner/exit-codes';
import { defaultHome, expandHome } from '@resume/runner/home';
import { createFsStore } from '@resume/storage-fs';
import { createEngineBackend } from '../backend/engine-backend.js';
import { commandFor, openSessionBrowser } from '../browser/open-session-browser.js';
import { resumePlanView } from '../plan/resume-prompt-plan.js';
import { writePlain } from '../render/plain-prompt.js';

/**
 * Plans resumes as `conclave tui` does: each mode's "what runs next" and the workspace's
 * changed files. The runner that plans is created when the first plan is asked for, after the
 * first frame.
 */
function resumePlanner(engine: Engine, workspaceDir: string) {
  let planner: Promise<ReturnType<typeof createPlanner>> | null = null;
  return async (sessionId: string) => {
    planner ??= import('@resume/runner').then((runner) => runner.createPlanner({ engine, workspaceDir }));
    return resumePlanView(await (await planner).plan(sessionId));
  };
}

async function main(): Promise<number> {
  const userHome = homedir();
  const home = process.env.CONCLAVE_HOME
    ? expandHome(process.env.CONCLAVE_HOME, userHome, process.cwd())
    : defaultHome(userHome);
  const engine = createEngine({ store: createFsStore({ dir: home }) });
  try {
    // A question answered in the browser is journaled as from this user and machine.
    const answeredBy = `${userInfo().username}@${hostname()}`;
    const backend = createEngineBackend({
      engine,
      answeredBy,
      planResume: resumePlanner(engine, process.cwd()),
      // Beside the listing index, where `conclave sessions search` keeps it too.
      contentIndex: { file: path.join(home, 'index', 'content.sqlite'), store: engine.store },
    });
    const picked = await openSessionBrowser(backend, {
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
      writePlain(process.stderr, `Error: ${error.message}\n${error.hint ? `${error.hint}\n` : ''}`);
      process.exitCode = exitCodeFor(error);
      return;
    }
    writePlain(process.stderr, `Error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
