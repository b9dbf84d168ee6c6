// End-to-end: exports of sessions encrypted at rest. Without an encryption choice the export is
// encrypted for the home's own key (an import into the same home needs no options); `--plain`
// is the one way to write it in the clear, and says so. A changed byte, a removed signature and
// an import into a home without the key are refused with what is needed, and store nothing.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? null;
const secretText = 'the saffron-lighthouse ledger';

type Transcript = { messages: { role: string; speaker: string | null; content: string }[] };

describe('exports of an encrypted session', () => {
  const home = sandboxFixture('all');
  const other = sandboxFixture('all');
  let id: string;
  let clearId: string;
  let transcript: Transcript['messages'];
  let sealed: string;

  const forget = async (sandbox: typeof home) => {
    await sandbox.run(['sessions', 'delete', id, '--force', '--now']);
  };

  beforeAll(async () => {
    const cleartext = await home.run([`Evaluate my idea: written before encryption`]);
    clearId = sessionIdFrom(cleartext.stdout) ?? '';
    expect(clearId).not.toBe('');
    const init = await home.run(['keys', 'init']);
    expect(init.code, init.stderr).toBe(0);
    await writeFile(path.join(home.home, 'config.yaml'), 'encryption: on\n');
    const started = await home.run([`Evaluate my idea: ${secretText}`]);
    expect(started.code, started.stderr).toBe(0);
    id = sessionIdFrom(started.stdout) ?? '';
    transcript = (await home.json<Transcript>(['sessions', 'show', id])).messages;
    sealed = path.join(home.root, 'sealed.json');
    const exported = await home.run(['sessions', 'export', id, '-o', sealed]);
    expect(exported.code, exported.stderr).toBe(0);
    expect((await other.run(['keys', 'init'])).code).toBe(0);
  });

  it('is encrypted for this home by default, says how to export for another, and imports back with no options', async () => {
    const text = await readFile(sealed, 'utf8');
    expect(text).not.toContain('saffron-lighthouse');
    expect(text).not.toContain(id);
    expect(JSON.parse(text)).toMatchObject({ format: 'conclave-session-encrypted' });
    const again = await home.run(['sessions', 'export', id, '-o', sealed, '--force']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('encrypted for this home');
    expect(again.stderr).toContain('--encrypt-for <public key>');
    expect(again.stderr).toContain('--passphrase');
    expect(again.stderr).toContain('--plain');

    const toStdout = await home.run(['sessions', 'export', id]);
    expect(toStdout.code, toStdout.stderr).toBe(0);
    expect(toStdout.stdout).not.toContain('saffron-lighthouse');
    expect(toStdout.stderr).toContain('encrypted for this home');

    await forget(home);
    const imported = await home.run(['sessions', 'import', sealed]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('encrypted for this home');
    expect(imported.stdout).toContain('signed by this home');
    expect((await home.json<Transcript>(['sessions', 'show', id])).messages).toEqual(transcript);
  });

  it('is written in the clear only with --plain, which warns; a session written in the clear exports as before', async () => {
    const plain = path.join(home.root, 'plain.json');
    const exported = await home.run(['sessions', 'export', id, '-o', plain, '--plain']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(await readFile(plain, 'utf8')).toContain('saffron-lighthouse');
    expect(exported.stderr).toMatch(/warning|in the clear/i);
    expect(exported.stderr).toContain('encrypted at rest');

    const markdown = await home.run(['sessions', 'export', id, '--format', 'md']);
    expect(markdown.code).toBe(64);
    expect(markdown.stderr).toContain('--plain');
    expect(markdown.stdout).toBe('');
    const readable = await home.run(['sessions', 'export', id, '--format', 'md', '--plain']);
    expect(readable.code, readable.stderr).toBe(0);
    expect(readable.stdout).toContain('saffron-lighthouse');

    const both = await home.run(['sessions', 'export', id, '--plain', '--passphrase', 'correct horse battery']);
    expect(both.code).toBe(64);
    expect(both.stderr).toContain('--plain');

    const clear = path.join(home.root, 'clear.json');
    const before = await home.run(['sessions', 'export', clearId, '-o', clear]);
    expect(before.code, before.stderr).toBe(0);
    expect(await readFile(clear, 'utf8')).toContain('written before encryption');
    expect(before.stderr).not.toContain('encrypted');
  });

  it('refuses an encrypted export with a flipped byte (65) and stores nothing', async () => {
    const envelope = JSON.parse(await readFile(sealed, 'utf8')) as { ciphertext: string; iv: string };
    const bytes = Buffer.from(envelope.ciphertext, 'base64');
    bytes[Math.floor(bytes.length / 2)] = (bytes[Math.floor(bytes.length / 2)] ?? 0) ^ 0x01;
    const flipped = path.join(home.root, 'flipped.json');
    await writeFile(flipped, JSON.stringify({ ...envelope, ciphertext: bytes.toString('base64') }, null, 2));
    await forget(home);
    const refused = await home.run(['sessions', 'import', flipped]);
    expect(refused.code).toBe(65);
    expect(refused.stderr).toContain(flipped);
    expect(refused.stderr).toContain('does not match its authentication tag');
    expect(await home.json<{ id: string }[]>(['sessions', 'list'])).not.toContainEqual(expect.objectContaining({ id }));

    const ivChanged = path.join(home.root, 'iv.json');
    const iv = Buffer.from(envelope.iv, 'base64');
    iv[0] = (iv[0] ?? 0) ^ 0x80;
    await writeFile(ivChanged, JSON.stringify({ ...envelope, iv: iv.toString('base64') }));
    const refusedIv = await home.run(['sessions', 'import', ivChanged]);
    expect(refusedIv.code).toBe(65);
    expect((await home.run(['sessions', 'import', sealed])).code).toBe(0);
  });

  it('refuses a plain export of it whose signature was removed or that was rewritten as an older format', async () => {
    const plain = path.join(home.root, 'plain.json');
    const bundle = JSON.parse(await readFile(plain, 'utf8')) as Record<string, unknown>;
    expect(bundle.signature).toMatchObject({ fingerprint: expect.stringMatching(/^SHA256:/) });
    const { signature, ...withoutSignature } = bundle;
    const stripped = path.join(home.root, 'stripped.json');
    await writeFile(stripped, JSON.stringify(withoutSignature));
    const removed = await other.run(['sessions', 'import', stripped]);
    expect(removed.code).toBe(65);
    expect(removed.stderr).toContain('its signature was removed');
    await writeFile(stripped, JSON.stringify({ ...withoutSignature, formatVersion: 2, signature }));
    const downgraded = await other.run(['sessions', 'import', stripped]);
    expect(downgraded.code).toBe(65);
    expect(await other.json<unknown[]>(['sessions', 'list'])).toEqual([]);
  });

  it('refuses it in another home without the key, naming the key needed and how to get an export for that home', async () => {
    const refused = await other.run(['sessions', 'import', sealed]);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toMatch(/encrypted for the key SHA256:[A-Za-z0-9+/]{43}, not this home's/);
    expect(refused.stderr).toContain('--key');
    expect(refused.stderr).toContain('keys export-public');
    expect(refused.stderr).toContain('--encrypt-for');
    expect(await other.json<unknown[]>(['sessions', 'list'])).toEqual([]);

    const publicKey = path.join(other.root, 'other.pub');
    expect((await other.run(['keys', 'export-public', '-o', publicKey])).code).toBe(0);
    const forOther = path.join(home.root, 'for-other.json');
    const exported = await home.run(['sessions', 'export', id, '-o', forOther, '--encrypt-for', publicKey]);
    expect(exported.code, exported.stderr).toBe(0);
    const opened = await other.run(['sessions', 'import', forOther]);
    expect(opened.code, opened.stderr).toBe(0);
    expect((await other.json<Transcript>(['sessions', 'show', id])).messages).toEqual(transcript);
  });
});
