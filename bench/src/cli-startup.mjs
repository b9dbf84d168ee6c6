// A start-up budget (docs/benchmarks.md): `conclave sessions list --json` over 1,000 sessions
// against a bare `node -e 0`, both run as fresh processes, interleaved so that load
// on the machine hits both alike. Uses the built CLI (apps/cli/dist/conclave.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const defaultCliPath = path.join(repositoryRoot, 'apps/cli/dist/conclave.mjs');

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Fills `home` with `count` completed sessions (one message each), as a user's history would be. */
export async function createSessions(home, count) {
  const engine = createEngine({ store: createFsStore({ dir: home }) });
  for (let index = 0; index < count; index += 1) {
    const session = await engine.createSession({ title: `session ${index}`, mode: 'discussion' });
    session.addMessage({ role: 'user', content: `task ${index}` });
    await session.complete();
    await session.close();
  }
  await engine.close();
}

/**
 * Returns `{ nodeBareMs, listMs, ratio }` (medians of `runs` interleaved runs; the budget is
 * ratio <= 3) plus the minimums and the number of sessions listed. Pass `home` to list an
 * existing data home instead of creating `sessions` new ones in a temporary directory.
 */
export async function measureCliStartup({ sessions = 1_000, runs = 20, cli = defaultCliPath, home } = {}) {
  if (!existsSync(cli)) throw new Error(`${cli} does not exist: build the CLI first (./bin/pnpm build).`);
  const directory = home ? null : await mkdtemp(path.join(tmpdir(), 'conclave-bench-startup-'));
  try {
    const dataHome = home ?? path.join(directory, 'home');
    if (!home) await createSessions(dataHome, sessions);
    // Only PATH: no user config, no CONCLAVE_* variables, the same for both commands.
    const environment = { PATH: process.env.PATH ?? '' };
    const listArguments = [cli, 'sessions', 'list', '--json', '--home', dataHome];
    const run = (args) => {
      const start = performance.now();
      execFileSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: environment });
      return performance.now() - start;
    };
    // The first run fills Node's compile cache and the OS file cache; a user's second run starts from there.
    const listed = JSON.parse(
      execFileSync(process.execPath, listArguments, { env: environment, maxBuffer: 64 * 1024 * 1024 }).toString('utf8'),
    ).length;
    run(['-e', '0']);
    const bare = [];
    const list = [];
    for (let index = 0; index < runs; index += 1) {
      bare.push(run(['-e', '0']));
      list.push(run(listArguments));
    }
    const nodeBareMs = median(bare);
    const listMs = median(list);
    return {
      sessions: home ? listed : sessions,
      listed,
      runs,
      nodeBareMs,
      listMs,
      ratio: listMs / nodeBareMs,
      nodeBareMinMs: Math.min(...bare),
      listMinMs: Math.min(...list),
    };
  } finally {
    if (directory) await rm(directory, { recursive: true, force: true });
  }
}
