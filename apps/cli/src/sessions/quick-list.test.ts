// The quick `sessions list --json`: it prints exactly what the full command prints, and leaves
// the answer to the full command whenever the listing index cannot vouch for itself.
import { appendFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { messageEvent, testSummary } from '@resume/core/testing';
import { createFsStore } from '@resume/storage-fs';
import { untilChangeIsOlderThan } from '@resume/test-support';
import { beforeEach, describe, expect, it } from 'vitest';
import { moduleLoadLog } from '../e2e/module-loads.js';
import { assertBuilt } from '../e2e/run-cli.js';
import { sandboxFixture } from '../e2e/sandbox-fixture.js';
import { quickListArguments, quickListJson } from './quick-list.js';

describe('which command lines take the quick listing', () => {
  it('takes a plain `sessions list --json`, with or without --home, and nothing else', () => {
    expect(quickListArguments(['sessions', 'list', '--json'])).toEqual({ home: undefined });
    expect(quickListArguments(['sessions', 'ls', '--json', '--home', 'h'])).toEqual({ home: 'h' });
    expect(quickListArguments(['sessions', 'list', '--home=h', '--json'])).toEqual({ home: 'h' });
    expect(quickListArguments(['sessions', 'list'])).toBeNull();
    expect(quickListArguments(['sessions', 'list', '--json', '--status', 'failed'])).toBeNull();
    expect(quickListArguments(['sessions', 'list', '--json', '--limit', '2'])).toBeNull();
    expect(quickListArguments(['sessions', 'list', '--json', '--home'])).toBeNull();
    expect(quickListArguments(['sessions', 'list', '--json', '--home', '--quiet'])).toBeNull();
    expect(quickListArguments(['sessions', 'list', '--json', '--json'])).toBeNull();
    expect(quickListArguments(['sessions', 'show', '--json'])).toBeNull();
    expect(quickListArguments(['--json', 'sessions', 'list'])).toBeNull();
  });
});

describe('the quick listing', () => {
  beforeEach(() => assertBuilt());
  const sandbox = sandboxFixture();

  const environment = () => ({ env: { CONCLAVE_HOME: sandbox.home }, cwd: sandbox.workspace, userHome: sandbox.root });
  /** The full command's answer (`--quiet` keeps it off the quick path; stdout is the same). */
  const fullListing = async () => {
    const result = await sandbox.run(['sessions', 'list', '--json', '--quiet']);
    expect(result.code).toBe(0);
    return result.stdout.trimEnd();
  };

  /**
   * A listing that stamps the index (as a user's full listing does once the sessions folder has
   * been unchanged for 2 s), made once it has been unchanged for 50 ms.
   */
  const stampingListing = async () => {
    await untilChangeIsOlderThan(path.join(sandbox.home, 'sessions'), 50);
    const store = createFsStore({ dir: sandbox.home, listingSettleMs: 50 });
    await store.list();
    await store.close();
  };

  /** One completed session titled "only", listed once the folder settled (its index stamped). */
  const oneStampedSession = async () => {
    const engine = createEngine({ store: createFsStore({ dir: sandbox.home }) });
    const session = await engine.createSession({ title: 'only', mode: 'discussion' });
    await session.complete();
    await session.close();
    await engine.close();
    await stampingListing();
    return session;
  };

  it('prints what the full command prints, and never a status older than the journal', async () => {
    const engine = createEngine({ store: createFsStore({ dir: sandbox.home }) });
    const ids: string[] = [];
    for (const title of ['first', 'second', 'third']) {
      const session = await engine.createSession({ title, mode: 'discussion' });
      session.addMessage({ role: 'user', content: `task ${title}` });
      await session.complete();
      await session.close();
      ids.push(session.id);
    }
    await engine.close();
    const args = ['sessions', 'list', '--json'];
    // Just written: the index is not stamped yet, so every session is checked against it (its
    // journal's size and form, as the store checks it) and the quick path answers the same.
    expect(quickListJson(args, environment())).toBe(await fullListing());
    // A session folder the index does not know yet (its writer has not recorded it) is left to the full command.
    const unknown = path.join(sandbox.home, 'sessions', '0001m8zzzzzzzzzzzzzzzz');
    await mkdir(unknown);
    expect(quickListJson(args, environment())).toBeNull();
    await rm(unknown, { recursive: true });
    // So is a journal that grew since the index recorded it.
    const grown = path.join(sandbox.home, 'sessions', ids[0] ?? '', 'journal.jsonl');
    const journal = await readFile(grown);
    await appendFile(grown, '\n');
    expect(quickListJson(args, environment())).toBeNull();
    await writeFile(grown, journal);

    // Once the sessions folder has settled, a listing stamps the index and the quick path answers.
    await stampingListing();
    const full = await fullListing();
    expect(quickListJson(args, environment())).toBe(full);
    expect(quickListJson(['sessions', 'list', '--home', sandbox.home, '--json'], { ...environment(), env: {} })).toBe(
      full,
    );
    // Homes written with `~` or relative to the working directory are expanded as the config loader does.
    const viaUserHome = { env: {}, cwd: sandbox.workspace, userHome: sandbox.root };
    expect(quickListJson(['sessions', 'list', '--home', '~/home', '--json'], viaUserHome)).toBe(full);
    expect(quickListJson(['sessions', 'list', '--home=../home', '--json'], viaUserHome)).toBe(full);
    expect(quickListJson(args, { ...viaUserHome, env: { CONCLAVE_HOME: '../home' } })).toBe(full);
    expect(quickListJson(args, { ...viaUserHome, userHome: sandbox.home, env: { CONCLAVE_HOME: '~' } })).toBe(full);

    // A session written since (here: another process appends, and the session failed) is never shown as it was.
    const writer = createFsStore({ dir: sandbox.home });
    const id = ids[1] ?? '';
    const lease = await writer.acquireLease(id, { holder: { pid: process.pid, host: hostname() } });
    const before = await writer.getSummary(id);
    const lastSeq = before?.lastSeq ?? 0;
    await writer.append(id, {
      expectedSeq: lastSeq,
      epoch: lease.epoch,
      events: [messageEvent(lastSeq + 1)],
      summary: { ...(before ?? testSummary(id)), lastSeq: lastSeq + 1, status: 'failed' },
    });
    expect(quickListJson(args, environment())).toBeNull();
    await lease.release();
    await writer.close();
    // The writer recorded the session as it left it: the quick path shows that, as the full command does.
    const after = await fullListing();
    expect(quickListJson(args, environment())).toBe(after);
    const items = JSON.parse(after) as { id: string; status: string }[];
    expect(items.find((item) => item.id === id)?.status).toBe('failed');
  });

  it('answers from the listing index without loading node:crypto, zod or the store', async () => {
    const session = await oneStampedSession();
    const loads = await moduleLoadLog(sandbox.root);
    const listed = await sandbox.run(['sessions', 'list', '--json'], { env: loads.env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id: session.id, title: 'only' }]);
    const modules = await loads.read();
    expect(modules).toMatch(/quick-list/);
    expect(modules).not.toContain('node:crypto');
    expect(modules).not.toMatch(/zod|cli-/);
  });

  it('writes a listing larger than a pipe holds whole, and exits quietly when its reader leaves', async () => {
    // 60 sessions with long titles: about 150 KB of JSON, more than a pipe holds at once.
    const engine = createEngine({ store: createFsStore({ dir: sandbox.home }) });
    for (let index = 0; index < 60; index += 1) {
      const session = await engine.createSession({
        title: `${index} ${'long title '.repeat(200)}`,
        mode: 'discussion',
      });
      await session.complete();
      await session.close();
    }
    await engine.close();
    await stampingListing();
    const full = await fullListing();
    expect(full.length).toBeGreaterThan(128 * 1024);
    const quick = await sandbox.run(['sessions', 'list', '--json']);
    expect(quick).toEqual({ code: 0, stdout: `${full}\n`, stderr: '' });

    // `conclave sessions list --json | head -c 10`: the reader goes before the answer is written.
    const running = sandbox.start(['sessions', 'list', '--json']);
    running.child.stdout?.destroy();
    expect(await running.done).toMatchObject({ code: 0, stderr: '' });
  });

  it('leaves the answer to the full command when a config file or a store URL may point elsewhere', async () => {
    await oneStampedSession();
    const args = ['sessions', 'list', '--json'];
    expect(quickListJson(args, environment())).not.toBeNull();
    expect(
      quickListJson(args, { ...environment(), env: { ...environment().env, CONCLAVE_STORE_URL: 'x' } }),
    ).toBeNull();
    await writeFile(path.join(sandbox.workspace, '.conclave.yaml'), 'home: elsewhere\n');
    expect(quickListJson(args, environment())).toBeNull();
  });
});
