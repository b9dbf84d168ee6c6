// End-to-end: the data key named in the config (`encryption.keyFile`, `encryption.keyCommand`)
// rather than in the environment. The session is sealed with that key and none of its text is in
// the home; a command that fails or prints no key, or a missing file, is refused naming the config
// file and the setting; `$CONCLAVE_ENCRYPTION_KEY*` wins over the config.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sandbox = sandboxFixture();
const task = 'Evaluate my idea: a lighthouse for the Quillfeather archive';

async function homeHolds(text: string): Promise<boolean> {
  const entries = await readdir(sandbox.home, { withFileTypes: true, recursive: true });
  for (const entry of entries) {
    if (entry.isFile() && (await readFile(path.join(entry.parentPath, entry.name))).includes(text)) return true;
  }
  return false;
}

async function config(lines: string[]): Promise<string> {
  await mkdir(sandbox.home, { recursive: true });
  const file = path.join(sandbox.home, 'config.yaml');
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

async function keysJson(env: Record<string, string> = {}) {
  const listed = await sandbox.run(['keys', 'list', '--json'], { env });
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as { encryption: string; keys: { id: string; current: boolean; source: string }[] };
}

describe('the data key from the config', () => {
  it('encryption.keyFile (relative to the config file) seals new sessions with that key', async () => {
    await config(['encryption:', '  enabled: on', '  keyFile: secrets/conclave.key']);
    await mkdir(path.join(sandbox.home, 'secrets'), { recursive: true });
    await writeFile(path.join(sandbox.home, 'secrets', 'conclave.key'), `${randomBytes(32).toString('base64')}\n`);

    const keys = await keysJson();
    expect(keys.encryption).toBe('on');
    expect(keys.keys).toEqual([
      expect.objectContaining({ current: true, source: expect.stringContaining('encryption.keyFile') }),
    ]);
    const started = await sandbox.run([task]);
    expect(started.code, started.stderr).toBe(0);
    expect(await homeHolds('Quillfeather')).toBe(false);

    const listed = await sandbox.run(['sessions', 'list', '--json']);
    expect(listed.stdout).toContain('Quillfeather');
  });

  it('encryption.keyCommand supplies the key; another file may turn encryption on', async () => {
    const keyText = randomBytes(32).toString('hex');
    await config([`encryption: { keyCommand: "printf '%s' ${keyText}" }`]);
    await writeFile(path.join(sandbox.workspace, '.conclave.yaml'), 'encryption: on\n');

    const keys = await keysJson();
    expect(keys.encryption).toBe('on');
    expect(keys.keys).toEqual([expect.objectContaining({ current: true })]);
    const started = await sandbox.run([task]);
    expect(started.code, started.stderr).toBe(0);
    expect(await homeHolds('Quillfeather')).toBe(false);

    // The environment wins over the config.
    const fromEnv = randomBytes(32).toString('base64');
    const overridden = await keysJson({ CONCLAVE_ENCRYPTION_KEY: fromEnv });
    expect(overridden.keys.find((key) => key.current)?.source).toBe('$CONCLAVE_ENCRYPTION_KEY');
  });

  it('a key command that fails is refused naming the config file, the setting and what it said', async () => {
    const file = await config(['encryption:', '  enabled: on', '  keyCommand: "echo vault is sealed >&2; exit 3"']);
    const refused = await sandbox.run([task]);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('encryption.keyCommand');
    expect(refused.stderr).toContain(file);
    expect(refused.stderr).toContain('vault is sealed');
    expect(await homeHolds('Quillfeather')).toBe(false);
  });

  it('a key command that prints a malformed key, or a key file that is missing, is refused naming the config file and the setting', async () => {
    const file = await config(['encryption:', '  enabled: on', '  keyCommand: "echo not-a-key"']);
    const malformed = await sandbox.run([task]);
    expect(malformed.code).toBe(64);
    expect(malformed.stderr).toContain(`encryption.keyCommand in ${file}`);
    expect(malformed.stderr).toContain('does not hold an encryption key');

    await config(['encryption:', '  enabled: on', '  keyFile: /nonexistent/conclave.key']);
    const missing = await sandbox.run(['sessions', 'list']);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain(`encryption.keyFile in ${file}`);
    expect(missing.stderr).toContain('/nonexistent/conclave.key');

    await config(['encryption:', '  keyFile: a.key', '  keyCommand: "echo x"']);
    const both = await sandbox.run(['sessions', 'list']);
    expect(both.code).toBe(64);
    expect(both.stderr).toContain('both');
  });
});
