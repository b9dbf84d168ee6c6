// Hostile session references and planted symlinks: `../`, absolute paths, encoded
// and NUL-carrying names, over-long names, and symlinks inside the store pointing
// out of it (a session directory, a journal, a snapshot, a header, a blob folder).
// Every one is refused with a typed error (library: not found / usage; CLI: exit
// 64, 65 or 66), nothing outside the store is read into any answer, and a sentinel
// directory next to the store is left exactly as it was.
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createEngine, type Engine } from '@resume/core';
import { ConclaveError } from '@resume/core/spec';
import { TEST_TIME, testHeader, testSessionId, testSummary } from '@resume/core/testing';
import { exitCodeFor } from '@resume/runner/exit-codes';
import { createFsStore } from '@resume/storage-fs';
import { describe, expect, it } from 'vitest';
import { runConclave } from '../support/cli-in-process.js';
import { fingerprint } from '../support/directory-fingerprint.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

const SECRET = 'sentinel-content-that-must-never-appear';
const OUTSIDE_MESSAGE = 'a message that lives outside the store';

interface Fixture {
  root: string;
  home: string;
  outside: string;
  workspace: string;
  /** A valid id whose session directory is a symlink to a real session outside the store. */
  linkedId: string;
  /** A real session whose journal, snapshot and header are symlinks to files outside. */
  pointingId: string;
  /** A real, untouched session. */
  honestId: string;
  /** A blob stored only outside, behind a symlinked blob folder. */
  outsideBlob: string;
}

async function writeSession(engine: Engine, title: string, content: string): Promise<string> {
  const session = await engine.createSession({ title, mode: 'custom' });
  session.addMessage({ role: 'user', content });
  await session.checkpoint('one');
  await session.complete();
  await session.close();
  return session.id;
}

async function buildFixture(): Promise<Fixture> {
  const root = temporaryDirectory();
  const home = path.join(root, 'home');
  const outside = path.join(root, 'outside');
  const workspace = path.join(root, 'workspace');
  mkdirSync(outside);
  mkdirSync(workspace);
  writeFileSync(path.join(outside, 'secret.txt'), SECRET);

  // A genuine session built in a scratch home, then moved outside the store.
  const scratch = path.join(root, 'scratch');
  const scratchEngine = createEngine({ store: createFsStore({ dir: scratch }), snapshotEvery: 1 });
  const linkedId = await writeSession(scratchEngine, 'outside session', OUTSIDE_MESSAGE);
  await scratchEngine.close();
  cpSync(path.join(scratch, 'sessions', linkedId), path.join(outside, linkedId), { recursive: true });
  rmSync(scratch, { recursive: true, force: true });

  const engine = createEngine({ store: createFsStore({ dir: home }), snapshotEvery: 1 });
  const honestId = await writeSession(engine, 'honest', 'an honest message');
  const pointingId = await writeSession(engine, 'pointing out', 'overwritten by links');
  const outsideBlob = await engine.store.putBlob(Buffer.from(SECRET));
  await engine.close();

  symlinkSync(path.join(outside, linkedId), path.join(home, 'sessions', linkedId));
  for (const name of ['journal.jsonl', 'snapshot.bin', 'header.json']) {
    rmSync(path.join(home, 'sessions', pointingId, name), { force: true });
    symlinkSync(path.join(outside, linkedId, name), path.join(home, 'sessions', pointingId, name));
  }
  // The blob now exists only outside; its folder inside the store is a symlink there.
  const blobFolder = path.join(home, 'blobs', outsideBlob.slice(0, 2));
  cpSync(blobFolder, path.join(outside, 'blobs'), { recursive: true });
  rmSync(blobFolder, { recursive: true });
  symlinkSync(path.join(outside, 'blobs'), blobFolder);
  return { root, home, outside, workspace, linkedId, pointingId, honestId, outsideBlob };
}

function hostileReferences(fixture: Fixture): string[] {
  return [
    '../outside',
    '../../outside/secret.txt',
    '/etc/passwd',
    path.join(fixture.outside, 'secret.txt'),
    path.join(fixture.outside, fixture.linkedId),
    '%2e%2e%2foutside',
    '..%2F..%2Foutside%2Fsecret.txt',
    `sessions/../../outside/${fixture.linkedId}`,
    `${fixture.honestId}/../../../outside`,
    `${fixture.honestId}\u0000`,
    `..\u0000/secret.txt`,
    '..\\..\\outside',
    '.',
    '..',
    '',
    '   ',
    '~/secret.txt',
    '$HOME',
    'file:///etc/passwd',
    'x'.repeat(5000),
    '０１２３４５６７８９ａｂｃｄｅｆｇｈｊｋｍｎ',
    fixture.linkedId,
    fixture.pointingId,
  ];
}

/**
 * The store refuses a session directory that is a symlink with its own typed error
 * (a StoreIoError naming the link, exit 1) rather than "not found": accepted, it
 * says exactly what is wrong.
 */
const isSymlinkRefusal = (message: string) => message.includes('is a symlink; the store never follows links');

/** Refusals that were not typed as a not-found or usage error: collected, so one run shows them all. */
let wrongRefusals: string[] = [];

async function attempt(reference: string, operation: () => Promise<unknown>, name = ''): Promise<unknown> {
  try {
    return await operation();
  } catch (error) {
    const shown = JSON.stringify(reference.slice(0, 40));
    if (!ConclaveError.isInstance(error)) {
      wrongRefusals.push(`${name} ${shown}: untyped ${error instanceof Error ? error.message : String(error)}`);
    } else if (![64, 66].includes(exitCodeFor(error)) && !isSymlinkRefusal(error.message)) {
      wrongRefusals.push(`${name} ${shown}: ${error.code} (exit ${exitCodeFor(error)}) ${error.message}`);
    }
    expect(error instanceof Error ? error.message : '').not.toContain(SECRET);
    return undefined;
  }
}

function batchFor(id: string) {
  // The hostile id goes into the header as it is: the store must refuse it, not the fixture.
  const header = { ...testHeader(), id };
  return {
    expectedSeq: 0,
    epoch: 1,
    summary: testSummary(testSessionId(), 1, { messageCount: 0 }),
    events: [{ type: 'session-created' as const, seq: 1, at: TEST_TIME, header }],
  };
}

describe('hostile ids and paths', () => {
  it('the engine and the file store refuse them all and touch nothing outside', async () => {
    wrongRefusals = [];
    const fixture = await buildFixture();
    const before = fingerprint(fixture.outside);
    const siblingsBefore = readdirSync(fixture.root).sort();
    const engine = createEngine({ store: createFsStore({ dir: fixture.home }) });
    const { store } = engine;
    for (const reference of hostileReferences(fixture)) {
      const answers = [
        await attempt(reference, () => engine.readSession(reference), 'engine.readSession'),
        await attempt(reference, async () => (await engine.openSession(reference)).close(), 'engine.openSession'),
        await attempt(reference, () => engine.deleteSession(reference, { force: true }), 'engine.deleteSession'),
        await attempt(reference, () => engine.resolveSessionId(reference), 'engine.resolveSessionId'),
        await attempt(reference, async () => {
          const events = [];
          for await (const event of engine.readEvents(reference)) events.push(event);
          return events;
        }),
        await attempt(reference, () => store.getHeader(reference), 'store.getHeader'),
        await attempt(reference, () => store.getSummary(reference), 'store.getSummary'),
        await attempt(reference, () => store.getSnapshot(reference), 'store.getSnapshot'),
        await attempt(
          reference,
          () => store.putSnapshot(reference, { seq: 1, formatVersion: 1, state: {} }),
          'store.putSnapshot',
        ),
        await attempt(reference, () => store.append(reference, batchFor(reference)), 'store.append'),
        await attempt(
          reference,
          async () => (await store.acquireLease(reference, { holder: { pid: 1, host: 'h' } })).release(),
          'store.acquireLease',
        ),
        await attempt(reference, () => store.inspectLease(reference), 'store.inspectLease'),
        await attempt(reference, async () => store.repair?.(reference), 'store.repair'),
        await attempt(reference, async () => store.archive?.(reference), 'store.archive'),
        await attempt(reference, () => store.getBlob(reference), 'store.getBlob'),
        await attempt(reference, () => store.delete(reference), 'store.delete'),
      ];
      // Whatever came back carries nothing from outside the store.
      const shown = JSON.stringify(answers, (_, value) =>
        value instanceof Uint8Array ? Buffer.from(value).toString() : value,
      );
      expect(shown, reference.slice(0, 60)).not.toContain(SECRET);
      expect(shown, reference.slice(0, 60)).not.toContain(OUTSIDE_MESSAGE);
    }
    // The honest session is untouched and the listing does not follow the links.
    expect((await engine.readSession(fixture.honestId)).messages.map((message) => message.content)).toEqual([
      'an honest message',
    ]);
    const listed = await attempt('list', () => engine.listSessions());
    expect(JSON.stringify(listed)).not.toContain(OUTSIDE_MESSAGE);
    expect(wrongRefusals).toEqual([]);
    // A blob behind a symlinked folder is not served, and no new blob is written through it.
    expect(await store.getBlob(fixture.outsideBlob)).toBeNull();
    let sameFolder = Buffer.from('probe 0');
    for (
      let index = 1;
      createHash('sha256').update(sameFolder).digest('hex').slice(0, 2) !== fixture.outsideBlob.slice(0, 2);
      index += 1
    ) {
      sameFolder = Buffer.from(`probe ${index}`);
    }
    await expect(store.putBlob(sameFolder)).rejects.toThrow('is not a directory');
    await engine.close();
    expect(fingerprint(fixture.outside)).toEqual(before);
    expect(readdirSync(fixture.root).sort()).toEqual(siblingsBefore);
  }, 60_000);

  it('the CLI exits 64, 65 or 66 for them all and prints nothing from outside', async () => {
    const fixture = await buildFixture();
    const before = fingerprint(fixture.outside);
    const siblingsBefore = readdirSync(fixture.root).sort();
    // An export bundle whose session id tries to climb out of the store.
    const evilBundle = path.join(fixture.workspace, 'evil.json');
    writeFileSync(
      evilBundle,
      JSON.stringify({
        format: 'conclave-session',
        formatVersion: 1,
        exportedAt: '2026-01-15T12:00:00.000Z',
        exportedBy: 'conclave',
        sessionId: '../outside/pwned',
        journalFormatVersion: 1,
        events: batchFor('../outside/pwned').events,
        blobs: {},
      }),
    );
    const options = { home: fixture.home, cwd: fixture.workspace };
    const commands = (reference: string) => [
      ['sessions', 'show', reference, '--json'],
      ['sessions', 'show', reference, '--transcript'],
      ['sessions', 'delete', reference, '--force'],
      ['sessions', 'export', reference, '--format', 'json', '-o', path.join(fixture.workspace, 'out.json')],
      ['sessions', 'repair', reference],
      ['checkpoints', 'list', reference, '--json'],
      ['run', '--resume', reference, '--dry-run'],
      ['--resume', reference, '--dry-run'],
    ];
    let runs = 0;
    const unexpected: string[] = [];
    for (const reference of hostileReferences(fixture)) {
      for (const argv of commands(reference)) {
        const result = await runConclave(argv, options);
        runs += 1;
        // The session whose files were all replaced by links is listed as damaged, so it can be deleted
        // (the links go, what they point to stays: the fingerprint below checks it).
        const deletesDamaged = argv[1] === 'delete' && reference === fixture.pointingId && result.code === 0;
        if (
          ![64, 65, 66].includes(result.code) &&
          !(result.code === 1 && isSymlinkRefusal(result.stderr)) &&
          !deletesDamaged
        ) {
          unexpected.push(`${argv.join(' ').slice(0, 100)} -> ${result.code}: ${result.stderr.split('\n')[0]}`);
        }
        expect(result.stdout + result.stderr).not.toContain(SECRET);
        expect(result.stdout + result.stderr).not.toContain(OUTSIDE_MESSAGE);
      }
    }
    expect(unexpected).toEqual([]);
    const imported = await runConclave(['sessions', 'import', evilBundle], options);
    expect([64, 65]).toContain(imported.code);
    expect(fingerprint(fixture.outside)).toEqual(before);
    expect(readdirSync(fixture.root).sort()).toEqual(siblingsBefore);
    expect(runs).toBeGreaterThan(100);
  }, 120_000);

  it('workspace tools never read or write through paths or symlinks that leave the workspace', async () => {
    const root = temporaryDirectory();
    const home = path.join(root, 'home');
    const outside = path.join(root, 'outside');
    const workspace = path.join(root, 'workspace');
    mkdirSync(outside);
    mkdirSync(workspace);
    writeFileSync(path.join(outside, 'secret.txt'), SECRET);
    writeFileSync(path.join(workspace, 'notes.txt'), 'ordinary notes');
    symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'leak.txt'));
    symlinkSync(outside, path.join(workspace, 'linked'));
    const attempts = [
      ['read_file', { path: 'leak.txt' }],
      ['read_file', { path: 'linked/secret.txt' }],
      ['read_file', { path: '../outside/secret.txt' }],
      ['read_file', { path: path.join(outside, 'secret.txt') }],
      ['read_file', { path: 'notes.txt/../../outside/secret.txt' }],
      ['list_files', { path: 'linked' }],
      ['list_files', { path: '..' }],
      ['write_file', { path: 'linked/pwned.txt', content: 'pwned' }],
      ['write_file', { path: '../outside/pwned.txt', content: 'pwned' }],
      ['write_file', { path: 'leak.txt', content: 'pwned' }],
    ] as const;
    const script = [
      ...attempts.map(
        ([name, args]) => `- text: "trying ${name}"\n  tool_calls: [{ name: ${name}, args: ${JSON.stringify(args)} }]`,
      ),
      '- text: "done"',
    ].join('\n');
    writeFileSync(path.join(workspace, 'lead.yaml'), script);
    const before = fingerprint(outside);
    const result = await runConclave(
      ['--provider', 'scripted', '--mode', 'orchestrated', '--script', 'lead.yaml', '--json', 'Try to escape'],
      { home, cwd: workspace },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(fingerprint(outside)).toEqual(before);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    // The whole session, as stored, never saw the secret, and every attempt got an error back.
    const engine = createEngine({ store: createFsStore({ dir: home }) });
    const [summary] = await engine.listSessions({ limit: 1 });
    const state = await engine.readSession(summary?.id as string);
    await engine.close();
    expect(JSON.stringify(state)).not.toContain(SECRET);
    expect(state.toolCalls.length).toBe(attempts.length);
    for (const call of state.toolCalls) expect(call.isError, JSON.stringify(call)).toBe(true);
    expect(readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).toBe('ordinary notes');
  }, 60_000);
});
