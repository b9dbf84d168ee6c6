import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConclaveError, UsageError } from '@resume/core/spec';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSigningKey,
  fingerprintOf,
  formatPublicKeys,
  parsePublicKeys,
  readHomeKey,
  readPrivateKeyFile,
  signingKeyFile,
} from './home-key.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function newHome(): string {
  const home = mkdtempSync(path.join(tmpdir(), 'conclave-keys-'));
  homes.push(home);
  return home;
}

describe("a home's key", () => {
  it('is created private, read back with the fingerprint it was given, and never replaced', () => {
    const home = newHome();
    expect(readHomeKey(home)).toBeNull();
    const created = createSigningKey(home);
    expect(statSync(created.file).mode & 0o777).toBe(0o600);
    const key = readHomeKey(home);
    expect(key?.publicKeys.signing && fingerprintOf(key.publicKeys.signing)).toBe(created.fingerprint);
    expect(key?.receiving?.asymmetricKeyType).toBe('x25519');
    expect(() => createSigningKey(home)).toThrow(/already has a signing key/);
  });

  it('gives the same public keys in both forms of the public key file', () => {
    const home = newHome();
    createSigningKey(home);
    const keys = readHomeKey(home)?.publicKeys;
    if (!keys?.signing || !keys.receiving) throw new Error('no key');
    for (const form of ['pem', 'one-line'] as const) {
      const read = parsePublicKeys(formatPublicKeys(keys, form), 'key.pub');
      expect(read.signing && fingerprintOf(read.signing)).toBe(fingerprintOf(keys.signing));
      expect(read.receiving && fingerprintOf(read.receiving)).toBe(fingerprintOf(keys.receiving));
    }
  });

  it('refuses a private key where a public one is expected, and a public one where the private one is', () => {
    const home = newHome();
    createSigningKey(home);
    const file = signingKeyFile(home);
    expect(() => parsePublicKeys(readFileSync(file, 'utf8'), file)).toThrow(/holds a private key/);
    const publicFile = path.join(home, 'key.pub');
    const keys = readHomeKey(home)?.publicKeys ?? { signing: null, receiving: null };
    writeFileSync(publicFile, formatPublicKeys(keys, 'pem'));
    expect(() => readPrivateKeyFile(publicFile)).toThrow(/holds only public keys/);
  });

  it('reads any text as a public key file or refuses it with a usage error naming the file', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((text) => `conclave-public-key ${text}`),
          fc.string().map((text) => `-----BEGIN PUBLIC KEY-----\n${text}\n-----END PUBLIC KEY-----\n`),
        ),
        (text) => {
          try {
            parsePublicKeys(text, 'given.pub');
          } catch (error) {
            expect(UsageError.isInstance(error) && ConclaveError.isInstance(error)).toBe(true);
            expect((error as Error).message).toContain('given.pub');
          }
        },
      ),
    );
  });
});
