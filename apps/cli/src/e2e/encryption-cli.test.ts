// End-to-end: encryption at rest from the command line. A discussion and a workflow run with
// `encryption: on` leave none of their text in the home; without the key a session is listed as
// encrypted and every command that needs its content names the key and changes nothing.
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sandbox = sandboxFixture();

const task = 'Evaluate my idea: a vault for the Nightingale launch codes';
const flow = [
  'name: sealed-flow',
  'agents:',
  '  writer: { prompt: "You write." }',
  'steps:',
  '  - agent: writer',
  '    input: "Plan the quartz-harbor rollout"',
  '  - shell: "echo tool-output-marmalade-7731"',
  '',
].join('\n');

interface ShowJson {
  id: string;
  title: string;
  messages: { content: string }[];
}
interface ListItem {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
}

async function homeFiles(): Promise<string[]> {
  const entries = await readdir(sandbox.home, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

async function filesHolding(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const file of await homeFiles()) if ((await readFile(file)).includes(text)) found.push(file);
  return found;
}

async function encryptedHome(): Promise<string> {
  const init = await sandbox.run(['keys', 'init']);
  expect(init.code, init.stderr).toBe(0);
  const keyId = /Created data key ([0-9a-f]{12})/.exec(init.stdout)?.[1] ?? '';
  expect(keyId).toMatch(/^[0-9a-f]{12}$/);
  await writeFile(path.join(sandbox.home, 'config.yaml'), 'encryption: on\n');
  return keyId;
}

describe('conclave with encryption on', () => {
  it('keys init makes a key only its owner reads; a discussion and a workflow leave no text of theirs in the home', async () => {
    const keyId = await encryptedHome();
    const keyFile = path.join(sandbox.home, 'keys', 'data', `${keyId}.key`);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect((await sandbox.run(['keys', 'init'])).code).toBe(64);

    const discussion = await sandbox.run([task]);
    expect(discussion.code, discussion.stderr).toBe(0);
    await writeFile(path.join(sandbox.workspace, 'flow.yaml'), flow);
    const workflow = await sandbox.run(['run', 'flow.yaml']);
    expect(workflow.code, workflow.stderr).toBe(0);

    const listed = await sandbox.json<ListItem[]>(['sessions', 'list']);
    expect(listed).toHaveLength(2);
    const texts = [task, 'quartz-harbor', 'tool-output-marmalade-7731'];
    for (const item of listed) {
      const shown = await sandbox.json<ShowJson>(['sessions', 'show', item.id]);
      expect(shown.messages.length).toBeGreaterThan(0);
      texts.push(...shown.messages.map((message) => message.content.slice(0, 60)).filter((text) => text.length >= 12));
    }
    expect(texts.length).toBeGreaterThan(6);
    for (const text of texts) expect({ text, files: await filesHolding(text) }).toEqual({ text, files: [] });

    const keys = await sandbox.json<{ encryption: string; keys: { id: string; current: boolean }[] }>(['keys', 'list']);
    expect(keys).toEqual({ encryption: 'on', keys: [expect.objectContaining({ id: keyId, current: true })] });
  });

  it('without the key a session lists as encrypted and reading it names the key; the key supplied in the environment reads it', async () => {
    const keyId = await encryptedHome();
    const run = await sandbox.run([task]);
    expect(run.code, run.stderr).toBe(0);
    const [session] = await sandbox.json<ListItem[]>(['sessions', 'list']);
    const keyFile = path.join(sandbox.home, 'keys', 'data', `${keyId}.key`);
    const keyText = (await readFile(keyFile, 'utf8')).trim();
    const aside = path.join(sandbox.root, 'key-kept-elsewhere');
    await rename(path.join(sandbox.home, 'keys'), aside);
    await writeFile(path.join(sandbox.home, 'config.yaml'), 'encryption: off\n');

    const listing = await sandbox.run(['sessions', 'list']);
    expect(listing.code, listing.stderr).toBe(0);
    expect(listing.stdout).toContain(`encrypted (key ${keyId} not available)`);
    expect(listing.stdout).toContain(session?.id.slice(0, 8));
    const shown = await sandbox.run(['sessions', 'show', session?.id ?? '']);
    expect(shown.code).toBe(69);
    expect(shown.stderr).toContain(keyId);
    expect(shown.stderr).toContain('CONCLAVE_ENCRYPTION_KEY');
    const resumed = await sandbox.run(['--resume', session?.id ?? '', '--yes']);
    expect(resumed.code).toBe(69);

    const withKey = await sandbox.run(['sessions', 'show', session?.id ?? ''], {
      env: { CONCLAVE_ENCRYPTION_KEY: keyText },
    });
    expect(withKey.code, withKey.stderr).toBe(0);
    expect(withKey.stdout).toContain('Nightingale');
  });

  it('encryption on without any key is refused with the way to make one', async () => {
    await mkdir(sandbox.home, { recursive: true });
    await writeFile(path.join(sandbox.home, 'config.yaml'), 'encryption: on\n');
    const refused = await sandbox.run([task]);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('no key to encrypt with');
    expect(refused.stderr).toContain('conclave keys init');
  });

  it('sessions encrypt seals a session written in the clear; keys retire waits until --rekey moved every session off the key', async () => {
    const plain = await sandbox.run([task]);
    expect(plain.code, plain.stderr).toBe(0);
    expect((await filesHolding('Nightingale')).length).toBeGreaterThan(0);
    const oldKey = await encryptedHome();
    const encrypted = await sandbox.run(['sessions', 'encrypt', '--all']);
    expect(encrypted.code, encrypted.stderr).toBe(0);
    expect(encrypted.stdout).toContain(`with key ${oldKey}`);
    expect(await filesHolding('Nightingale')).toEqual([]);

    const rotated = await sandbox.run(['keys', 'rotate']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const [session] = await sandbox.json<ListItem[]>(['sessions', 'list']);
    const refused = await sandbox.run(['keys', 'retire', oldKey]);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain(session?.id);
    expect(refused.stderr).toContain('conclave sessions encrypt --all --rekey');

    expect((await sandbox.run(['sessions', 'encrypt', '--all', '--rekey'])).code).toBe(0);
    const retired = await sandbox.run(['keys', 'retire', oldKey]);
    expect(retired.code, retired.stderr).toBe(0);
    const shown = await sandbox.json<ShowJson>(['sessions', 'show', session?.id ?? '']);
    expect(shown.messages[0]?.content).toBe(task);
    const keys = await sandbox.json<{ keys: { id: string }[] }>(['keys', 'list']);
    expect(keys.keys.map((key) => key.id)).not.toContain(oldKey);
  });
});
