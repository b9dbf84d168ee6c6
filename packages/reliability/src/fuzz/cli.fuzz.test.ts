// Fuzzing the `conclave` command line (run in this process through its own entry
// point, with no keys, no terminal and a temporary home): random argument lists
// built from the real commands, flags and hostile values, and random exported
// bundles given to `sessions import`. Every run ends with a documented exit code,
// never with an "unexpected failure" (an error nobody typed), and the sessions
// already in the home stay exactly as they were.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runConclave } from '../support/cli-in-process.js';
import { sized, sizedTimeout } from '../support/stress.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

/** Exit codes a user may see in these runs (the full list: docs/cli.md#exit-codes). */
const DOCUMENTED_EXIT_CODES = [0, 1, 64, 65, 66, 69, 75, 130];

async function prepareHome(root: string) {
  const home = path.join(root, 'home');
  const workspace = path.join(root, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(path.join(workspace, 'notes.md'), '# Notes\nSome text.\n');
  writeFileSync(
    path.join(workspace, 'spec.yaml'),
    'name: x\nagents: { a: { prompt: "hi" } }\nsteps:\n  - agent: a\n    input: "go"\n',
  );
  const engine = createEngine({ store: createFsStore({ dir: home }) });
  const session = await engine.createSession({ title: 'keep me', mode: 'custom' });
  session.addMessage({ role: 'user', content: 'a message to keep' });
  await session.checkpoint('kept');
  await session.complete();
  await session.close();
  await engine.close();
  return { home, workspace, keptId: session.id };
}

async function keptMessages(home: string, id: string): Promise<string[]> {
  const engine = createEngine({ store: createFsStore({ dir: home }) });
  try {
    return (await engine.readSession(id)).messages.map((message) => message.content);
  } finally {
    await engine.close();
  }
}

const words = [
  'sessions',
  'list',
  'ls',
  'show',
  'delete',
  'rm',
  'cleanup',
  'export',
  'import',
  'repair',
  'checkpoints',
  'run',
  'config',
  'tui',
  'help',
  '--json',
  '--quiet',
  '--no-color',
  '--limit',
  '--status',
  '--mode',
  '--since',
  '--format',
  '-o',
  '--older-than',
  '--dry-run',
  '--force',
  '--resume',
  '-r',
  '--continue',
  '-c',
  '--branch-from',
  '--at-round',
  '--from-checkpoint',
  '--max-rounds',
  '--models',
  '--model',
  '--provider',
  '--var',
  '--on-conflict',
  '--on-uncertain',
  '--start-chunk',
  '--project',
  '--script',
  '--title',
  '--home',
  '--yes',
  '--transcript',
  '--list-sessions',
  '--show-session',
  '--delete-session',
  '--cleanup-sessions',
  'interrupted',
  'completed',
  'discussion',
  'iterative',
  'json',
  'md',
  '30d',
  '0',
  '-1',
  '1e9',
  'NaN',
  '2026-01-01',
  'notes.md',
  'spec.yaml',
  '../..',
  '/etc/passwd',
  'k=v',
  '=',
  '--',
  '-',
  'scripted',
  'openai',
  'postgres://nobody@127.0.0.1:1/none',
  'file:///tmp',
  'rerun',
  'skip',
];

// `--store <path>` is left out: run in this process, a relative store path resolves
// against the test process's directory (the repository), not the CLI's injected one.
const argumentList = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...words) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  ),
  { minLength: 1, maxLength: 6 },
);

describe('the CLI under fuzzing', () => {
  const runs = sized(250, 3_000);
  it(
    `${runs} random argument lists end with a documented exit code and no untyped error`,
    async () => {
      const root = temporaryDirectory();
      const { home, workspace, keptId } = await prepareHome(root);
      const exits = new Map<number, number>();
      // Nothing may appear in the directory this process runs in (the repository).
      const besideBefore = readdirSync(process.cwd()).sort();
      await fc.assert(
        fc.asyncProperty(argumentList, async (argv) => {
          // A bare task would start a real (scripted) discussion: bound it.
          const bounded = [...argv, '--provider', 'scripted', '--max-rounds', '1'];
          const result = await runConclave(argv.includes('--provider') ? argv : bounded, {
            home,
            cwd: workspace,
            env: { CONCLAVE_SCRIPTED_LATENCY_MS: '0' },
          });
          exits.set(result.code, (exits.get(result.code) ?? 0) + 1);
          expect(DOCUMENTED_EXIT_CODES, `${JSON.stringify(argv)}\n${result.stderr}`).toContain(result.code);
          expect(result.stderr, JSON.stringify(argv)).not.toContain('unexpected failure');
        }),
        { numRuns: runs },
      );
      // `--force` deletes are among the random lists; the kept session may be gone, but never damaged.
      const messages = await keptMessages(home, keptId).catch(() => null);
      if (messages) expect(messages).toEqual(['a message to keep']);
      expect(exits.get(64) ?? 0).toBeGreaterThan(0);
      expect(readdirSync(process.cwd()).sort()).toEqual(besideBefore);
      process.stderr.write(`argument fuzz outcomes (exit code: count): ${JSON.stringify(Object.fromEntries(exits))}\n`);
    },
    sizedTimeout(120_000, 1_800_000),
  );

  const bundles = sized(150, 2_500);
  it(
    `${bundles} random or damaged export bundles are imported whole or refused`,
    async () => {
      const root = temporaryDirectory();
      const { home, workspace, keptId } = await prepareHome(root);
      const exported = path.join(workspace, 'kept.json');
      const exportRun = await runConclave(['sessions', 'export', keptId, '--format', 'json', '-o', exported], {
        home,
        cwd: workspace,
      });
      expect(exportRun.code, exportRun.stderr).toBe(0);
      const valid = readFileSync(exported, 'utf8');
      const bundle = fc.oneof(
        fc.jsonValue().map((value) => JSON.stringify(value)),
        fc.tuple(fc.nat(), fc.string({ maxLength: 4 })).map(([position, insert]) => {
          const at = position % valid.length;
          return valid.slice(0, at) + insert + valid.slice(at + 1);
        }),
        fc.jsonValue().map((value) => {
          const document = JSON.parse(valid) as Record<string, unknown>;
          const keys = ['sessionId', 'events', 'blobs', 'formatVersion', 'journalFormatVersion', 'format'];
          const key = keys[JSON.stringify(value).length % keys.length] as string;
          return JSON.stringify({ ...document, [key]: value });
        }),
      );
      let index = 0;
      const outcomes = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(bundle, async (text) => {
          index += 1;
          const file = path.join(workspace, `bundle-${index}.json`);
          writeFileSync(file, text);
          const result = await runConclave(['sessions', 'import', file, '--json'], { home, cwd: workspace });
          outcomes.set(result.code, (outcomes.get(result.code) ?? 0) + 1);
          expect([0, 64, 65, 66], `${text.slice(0, 200)}\n${result.stderr}`).toContain(result.code);
          expect(result.stderr).not.toContain('unexpected failure');
          if (result.code === 0) {
            // Whatever was imported opens and shows.
            const shown = await runConclave(['sessions', 'show', JSON.parse(result.stdout).imported, '--json'], {
              home,
              cwd: workspace,
            });
            expect(shown.code, shown.stderr).toBe(0);
          }
        }),
        { numRuns: bundles },
      );
      expect(await keptMessages(home, keptId)).toEqual(['a message to keep']);
      process.stderr.write(
        `import fuzz outcomes (exit code: count): ${JSON.stringify(Object.fromEntries(outcomes))}\n`,
      );
    },
    sizedTimeout(120_000, 1_800_000),
  );
});
