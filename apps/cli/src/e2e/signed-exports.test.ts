// End-to-end: signed exports. A home's signing key (`keys init`), its public key handed to
// others (`keys export-public`, `keys trust`), an import that says who signed a bundle and
// refuses one changed after it was signed, and exports encrypted for a key or a passphrase.

import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? null;

beforeAll(() => assertBuilt());

interface Bundle {
  sessionId: string;
  formatVersion: number;
  checksum: { algorithm: string; events: string };
  signature?: { fingerprint: string } | null;
  events: { type: string; message?: { content: string } }[];
}

const privateKeyOf = (sandbox: { home: string }) => path.join(sandbox.home, 'keys', 'signing-key.pem');

type Transcript = { messages: { role: string; speaker: string | null; content: string }[] };

describe('signed exports', () => {
  const author = sandboxFixture('all');
  const reader = sandboxFixture('all');
  let id: string;
  let signed: string;
  let publicKey: string;
  let fingerprint: string;
  let transcript: Transcript['messages'];

  const forget = async () => {
    await reader.run(['sessions', 'delete', id, '--force', '--now']);
  };

  beforeAll(async () => {
    const init = await author.run(['keys', 'init']);
    expect(init.code, init.stderr).toBe(0);
    fingerprint = /SHA256:[A-Za-z0-9+/]{43}/.exec(init.stdout)?.[0] ?? '';
    expect(fingerprint).not.toBe('');
    const started = await author.run(['Evaluate my idea: durable agent sessions']);
    id = sessionIdFrom(started.stdout) ?? '';
    signed = path.join(author.root, 'signed.json');
    const exported = await author.run(['sessions', 'export', id, '-o', signed]);
    expect(exported.code, exported.stderr).toBe(0);
    publicKey = path.join(author.root, 'author.pub');
    const shared = await author.run(['keys', 'export-public', '-o', publicKey]);
    expect(shared.code, shared.stderr).toBe(0);
    transcript = (await author.json<Transcript>(['sessions', 'show', id])).messages;
  });

  it('keeps the signing key private in the home and refuses to make a second one', async () => {
    const key = privateKeyOf(author);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(key)).mode & 0o777).toBe(0o700);
    const before = await readFile(key, 'utf8');
    const again = await author.run(['keys', 'init']);
    expect(again.code).toBe(64);
    expect(again.stderr).toContain('already');
    expect(await readFile(key, 'utf8')).toBe(before);
    expect(await readFile(publicKey, 'utf8')).not.toContain('PRIVATE');
    await chmod(key, 0o644);
    const exposed = await author.run(['sessions', 'export', id, '-o', '-']);
    await chmod(key, 0o600);
    expect(exposed.code, exposed.stderr).toBe(0);
    expect(exposed.stderr).toContain(`chmod 600 ${key}`);
    const line = await author.run(['keys', 'export-public', '--one-line']);
    expect(line.stdout.trim()).toMatch(/^conclave-public-key ed25519:\S+ x25519:\S+$/);
  });

  it('says who signed a bundle: this home, an unknown key, a trusted name', async () => {
    const bundle = JSON.parse(await readFile(signed, 'utf8')) as Bundle;
    expect(bundle.signature?.fingerprint).toBe(fingerprint);

    const own = await author.run(['sessions', 'verify', signed]);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toContain('signed by this home');

    const unknown = await reader.run(['sessions', 'import', signed]);
    expect(unknown.code, unknown.stderr).toBe(0);
    expect(unknown.stdout).toContain(`signed by an unknown key ${fingerprint}`);
    expect(unknown.stderr).toContain('conclave keys trust');
    await forget();

    const trust = await reader.run(['keys', 'trust', publicKey, '--name', 'alice']);
    expect(trust.code, trust.stderr).toBe(0);
    const listed = await reader.run(['keys', 'trust', '--list']);
    expect(listed.stdout).toContain('alice');
    expect(listed.stdout).toContain(fingerprint);
    const trusted = await reader.run(['sessions', 'import', signed, '--require-signed']);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('signed by alice (trusted)');
    const verified = await reader.run(['sessions', 'verify', signed, '--json']);
    expect(JSON.parse(verified.stdout)).toMatchObject([
      { file: signed, sessionId: id, problems: [], signature: { status: 'trusted', name: 'alice', fingerprint } },
    ]);
    await forget();

    const removed = await reader.run(['keys', 'trust', '--remove', 'alice']);
    expect(removed.code, removed.stderr).toBe(0);
    const refused = await reader.run(['sessions', 'import', signed, '--require-signed']);
    expect(refused.code).toBe(65);
    expect(refused.stderr).toContain(`signed by an unknown key ${fingerprint}`);
    expect(await reader.json<unknown[]>(['sessions', 'list'])).toEqual([]);
  });

  it('refuses a signed bundle edited with its checksum recomputed, naming the signature (65)', async () => {
    const bundle = JSON.parse(await readFile(signed, 'utf8')) as Bundle;
    const turn = bundle.events.find((event) => event.type === 'message-added' && event.message);
    if (turn?.message) turn.message.content = 'A conclusion nobody reached.';
    bundle.checksum.events = createHash('sha256').update(JSON.stringify(bundle.events)).digest('hex');
    const edited = path.join(author.root, 'edited.json');
    await writeFile(edited, JSON.stringify(bundle, null, 2));

    const refused = await reader.run(['sessions', 'import', edited]);
    expect(refused.code).toBe(65);
    expect(refused.stderr).toContain('its signature does not match its content');
    expect(refused.stderr).toContain(edited);
    expect(await reader.json<unknown[]>(['sessions', 'list'])).toEqual([]);
    const verified = await reader.run(['sessions', 'verify', edited]);
    expect(verified.code).toBe(65);
    expect(verified.stdout).toContain('its signature does not match its content');
  });

  it('reports a bundle whose signature was removed as unsigned, refused under --require-signed or the config', async () => {
    const bundle = JSON.parse(await readFile(signed, 'utf8')) as Bundle;
    const stripped = path.join(author.root, 'stripped.json');
    await writeFile(stripped, JSON.stringify({ ...bundle, signature: null }));
    const required = await reader.run(['sessions', 'import', stripped, '--require-signed']);
    expect(required.code).toBe(65);
    expect(required.stderr).toContain('unsigned');
    await writeFile(path.join(reader.home, 'config.yaml'), 'imports:\n  requireSigned: true\n');
    const configured = await reader.run(['sessions', 'import', stripped]);
    expect(configured.code).toBe(65);
    expect(configured.stderr).toContain('imports.requireSigned');
    await writeFile(path.join(reader.home, 'config.yaml'), '');
    const plain = await reader.run(['sessions', 'import', stripped]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('unsigned');
    await forget();

    const { signature: _signature, ...withoutField } = bundle;
    await writeFile(stripped, JSON.stringify(withoutField));
    const missing = await reader.run(['sessions', 'import', stripped]);
    expect(missing.code).toBe(65);
    expect(missing.stderr).toContain('its signature was removed');

    await writeFile(stripped, JSON.stringify({ ...withoutField, formatVersion: 2 }));
    const older = await reader.run(['sessions', 'import', stripped]);
    expect(older.code, older.stderr).toBe(0);
    expect(older.stdout).toContain('unsigned');
    await forget();
  });

  it('exports unsigned from a home without a key, and says how to make one', async () => {
    const started = await reader.run(['Evaluate my idea: unsigned exports']);
    const own = sessionIdFrom(started.stdout) ?? '';
    const file = path.join(reader.root, 'unsigned.json');
    const exported = await reader.run(['sessions', 'export', own, '-o', file]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain('not signed');
    expect(exported.stderr).toContain('conclave keys init');
    expect((JSON.parse(await readFile(file, 'utf8')) as Bundle).signature).toBeNull();
    await reader.run(['sessions', 'delete', own, '--force', '--now']);
  });

  it('imports an export encrypted for a key only with that key, identically', async () => {
    const readerKey = path.join(reader.root, 'reader.pub');
    if ((await reader.run(['keys', 'init'])).code !== 0) throw new Error('keys init failed');
    await reader.run(['keys', 'export-public', '-o', readerKey]);
    const sealed = path.join(author.root, 'sealed.json');
    const exported = await author.run(['sessions', 'export', id, '-o', sealed, '--encrypt-for', readerKey]);
    expect(exported.code, exported.stderr).toBe(0);
    const text = await readFile(sealed, 'utf8');
    expect(text).not.toContain('durable agent sessions');

    const third = await author.run(['sessions', 'import', sealed]);
    expect(third.code).toBe(64);
    expect(third.stderr).toContain('encrypted for the key');
    expect(third.stderr).toContain('--key');
    const wrongKey = await author.run(['sessions', 'import', sealed, '--key', privateKeyOf(author)]);
    expect(wrongKey.code).toBe(64);
    expect(wrongKey.stderr).toContain('is not the one');

    const opened = await reader.run(['sessions', 'import', sealed]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toContain('encrypted for this home');
    expect(opened.stdout).toContain(`signed by an unknown key ${fingerprint}`);
    expect((await reader.json<Transcript>(['sessions', 'show', id])).messages).toEqual(transcript);
    await forget();

    const withKey = await reader.run(['sessions', 'import', sealed, '--key', privateKeyOf(reader)]);
    expect(withKey.code, withKey.stderr).toBe(0);
    await forget();
  });

  it('imports an export encrypted with a passphrase only with that passphrase, identically', async () => {
    const sealed = path.join(author.root, 'passphrase.json');
    const secret = path.join(author.root, 'secret.txt');
    await writeFile(secret, 'correct horse battery staple\n');
    const exported = await author.run(['sessions', 'export', id, '-o', sealed, '--passphrase-file', secret]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(await readFile(sealed, 'utf8')).not.toContain('durable agent sessions');

    const none = await reader.run(['sessions', 'import', sealed]);
    expect(none.code).toBe(64);
    expect(none.stderr).toContain('--passphrase');
    const wrong = await reader.run(['sessions', 'import', sealed, '--passphrase', 'incorrect horse']);
    expect(wrong.code).toBe(64);
    expect(wrong.stderr).toContain('does not open');
    expect(await reader.json<unknown[]>(['sessions', 'list'])).toEqual([]);

    const right = await reader.run(['sessions', 'import', sealed, '--passphrase-file', secret]);
    expect(right.code, right.stderr).toBe(0);
    expect((await reader.json<Transcript>(['sessions', 'show', id])).messages).toEqual(transcript);
    await forget();
  });
});
