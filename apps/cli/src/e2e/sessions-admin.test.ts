// End-to-end: the session administration commands a user can hurt themselves with:
// importing an export that was changed after it was written, deleting without asking.
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? null;

beforeAll(() => assertBuilt());

describe('conclave sessions import: checksums', () => {
  const sandbox = sandboxFixture('all');
  const other = sandboxFixture('all');
  let file: string;
  beforeAll(async () => {
    const started = await sandbox.run(['Evaluate my idea: durable agent sessions']);
    file = path.join(sandbox.root, 'export.json');
    const exported = await sandbox.run(['sessions', 'export', sessionIdFrom(started.stdout) ?? '', '-o', file]);
    expect(exported.code, exported.stderr).toBe(0);
  });

  it('refuses an export whose events were edited, and stores nothing', async () => {
    const data = JSON.parse(await readFile(file, 'utf8')) as {
      checksum: { events: string };
      events: { type: string; message?: { content: string } }[];
    };
    expect(data.checksum.events).toMatch(/^[0-9a-f]{64}$/);
    const turn = data.events.find((event) => event.type === 'message-added' && event.message);
    if (turn?.message) turn.message.content = 'A conclusion nobody reached.';
    const tampered = path.join(sandbox.root, 'tampered.json');
    await writeFile(tampered, JSON.stringify(data, null, 2));

    const refused = await other.run(['sessions', 'import', tampered]);
    expect(refused.code).toBe(65);
    expect(refused.stderr).toContain('its events do not match their checksum');
    expect(refused.stderr).toContain(tampered);
    expect(refused.stderr).toContain('Export the session again');
    expect(await other.json<unknown[]>(['sessions', 'list'])).toEqual([]);
    const stored = readdirSync(other.home, { recursive: true, withFileTypes: true }).filter((entry) =>
      entry.parentPath.includes('blobs'),
    );
    expect(stored.filter((entry) => entry.isFile())).toEqual([]);

    const withoutChecksum = { ...data, checksum: undefined };
    await writeFile(tampered, JSON.stringify(withoutChecksum));
    const stripped = await other.run(['sessions', 'import', tampered]);
    expect(stripped.code).toBe(65);
    expect(stripped.stderr).toContain('its checksum is missing');

    const intact = await other.run(['sessions', 'import', file]);
    expect(intact.code, intact.stderr).toBe(0);
  });

  it('refuses a bundle that claims format 1 with fields format 1 never had, and says no bundle is signed', async () => {
    const data = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await other.run(['sessions', 'delete', String(data.sessionId), '--force', '--now']);
    const downgraded = path.join(sandbox.root, 'downgraded.json');
    await writeFile(downgraded, JSON.stringify({ ...data, formatVersion: 1 }));
    const refused = await other.run(['sessions', 'import', downgraded]);
    expect(refused.code).toBe(65);
    expect(refused.stderr).toContain(
      'it claims format 1 but has checksum, lastSeq, signature, which format 1 never had',
    );
    expect(await other.json<unknown[]>(['sessions', 'list'])).toEqual([]);

    const { checksum: _checksum, lastSeq: _lastSeq, signature: _signature, ...formatOne } = data;
    await writeFile(downgraded, JSON.stringify({ ...formatOne, formatVersion: 1 }));
    const old = await other.run(['sessions', 'import', downgraded]);
    expect(old.code, old.stderr).toBe(0);
    expect(old.stderr).toContain(
      'not signed, and as format 1 it has no checksum: a change to it could not be detected',
    );
    await other.run(['sessions', 'delete', String(data.sessionId), '--force', '--now']);

    const current = await other.run(['sessions', 'import', file]);
    expect(current.code, current.stderr).toBe(0);
    expect(current.stderr).toContain(
      'not signed: its checksum shows the events arrived as written, not who wrote them',
    );
    await other.run(['sessions', 'delete', String(data.sessionId), '--force', '--now']);
  });

  it('says which event is missing from an export, in the middle or at the end', async () => {
    const data = JSON.parse(await readFile(file, 'utf8')) as { events: { seq: number }[] };
    const total = data.events.length;
    const cut = path.join(sandbox.root, 'cut.json');
    await writeFile(cut, JSON.stringify({ ...data, events: data.events.filter((event) => event.seq !== 5) }));
    const middle = await other.run(['sessions', 'import', cut]);
    expect(middle.code).toBe(65);
    expect(middle.stderr).toContain('event 5 is missing (its events go from 4 to 6)');
    expect(middle.stderr).not.toContain('newer than this Conclave');
    await writeFile(cut, JSON.stringify({ ...data, events: data.events.slice(0, -1) }));
    const end = await other.run(['sessions', 'import', cut]);
    expect(end.code).toBe(65);
    expect(end.stderr).toContain(`event ${total} is missing (the export was written with events 1..${total})`);
  });
});

describe('conclave sessions delete', () => {
  const sandbox = sandboxFixture('all');

  it('names the sessions that continue from the deleted one', async () => {
    const parent = sessionIdFrom((await sandbox.run(['Evaluate my idea'])).stdout) ?? '';
    const child = sessionIdFrom((await sandbox.run(['--resume', parent, 'What about scale?'])).stdout) ?? '';
    const trashed = await sandbox.run(['sessions', 'delete', parent]);
    expect(trashed.code, trashed.stderr).toBe(0);
    expect(trashed.stderr).toContain(`1 child session keeps its parent link until the trash is emptied: ${child}`);
    const deleted = await sandbox.run(['sessions', 'delete', parent, '--now']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr).toContain(`1 child session keeps its own history and lost its parent link: ${child}`);
    const json = await sandbox.json<{ deleted: string[]; orphaned: string[] }>(['sessions', 'delete', child, '--now']);
    expect(json).toEqual({ deleted: [child], trash: false, orphaned: [] });
  });

  it('never deletes a session a live process is running, --force or not (75), and keeps it whole', async () => {
    const id = sessionIdFrom((await sandbox.run(['Evaluate my idea again'])).stdout) ?? '';
    // This test process takes the writer lease, as a running conclave would.
    const engine = createEngine({ store: createFsStore({ dir: sandbox.home }) });
    const running = await engine.openSession(id, { replay: 'keyed', countRecovery: false });
    try {
      for (const args of [
        ['sessions', 'delete', id, '--force'],
        ['sessions', 'delete', id],
      ]) {
        const refused = await sandbox.run(args);
        expect(refused.code).toBe(75);
        expect(refused.stderr).toContain(`in use by pid ${process.pid}`);
      }
    } finally {
      await running.close();
      await engine.close();
    }
    const shown = await sandbox.run(['sessions', 'show', id, '--transcript']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Evaluate my idea again');
  });
});
