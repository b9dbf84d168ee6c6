import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { ConclaveError, JournalCorruptedError, UsageError } from '@resume/core/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HomeKey } from '../keys/home-key.js';
import { decryptExport, encryptExport } from './bundle-encryption.js';

function homeKey(): HomeKey {
  const receiving = generateKeyPairSync('x25519').privateKey;
  return {
    file: '/home/keys/signing-key.pem',
    signing: null,
    receiving,
    publicKeys: { signing: null, receiving: createPublicKey(receiving) },
  };
}

const text = '{"format":"conclave-session","events":[]}\n';

describe('an encrypted export', () => {
  const mine = homeKey();
  const sealed = JSON.parse(encryptExport(text, { recipient: mine.publicKeys.receiving as never })) as Record<
    string,
    unknown
  >;

  it('opens with the key it was encrypted for, and hides the content', () => {
    expect(JSON.stringify(sealed)).not.toContain('conclave-session"');
    expect(decryptExport(sealed, 'x.json', { key: mine, homeKey: true, passphrase: null })).toEqual({
      text,
      openedWith: 'key',
    });
  });

  it('says which key it needs when given another, or none', () => {
    for (const key of [homeKey(), null]) {
      const error = (() => {
        try {
          decryptExport(sealed, 'x.json', { key, homeKey: false, passphrase: null });
        } catch (caught) {
          return caught;
        }
      })();
      expect(UsageError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/encrypted for|is not the one/);
    }
  });

  it('refuses a changed byte of its content, tag or key agreement', () => {
    for (const field of ['ciphertext', 'tag', 'iv'] as const) {
      const value = sealed[field] as string;
      const changed = { ...sealed, [field]: `${value[0] === 'A' ? 'B' : 'A'}${value.slice(1)}` };
      expect(() => decryptExport(changed, 'x.json', { key: mine, homeKey: true, passphrase: null })).toThrow(
        /authentication tag|changed/,
      );
    }
  });

  it('opens with its passphrase only', () => {
    const withPassphrase = JSON.parse(encryptExport(text, { passphrase: 'correct horse' })) as unknown;
    expect(decryptExport(withPassphrase, 'x.json', { key: null, homeKey: true, passphrase: 'correct horse' })).toEqual({
      text,
      openedWith: 'passphrase',
    });
    expect(() =>
      decryptExport(withPassphrase, 'x.json', { key: null, homeKey: true, passphrase: 'wrong horse' }),
    ).toThrow(/does not open/);
    expect(() => decryptExport(withPassphrase, 'x.json', { key: null, homeKey: true, passphrase: null })).toThrow(
      /encrypted with a passphrase/,
    );
  });

  it('turns any envelope into its text or an error that names the file, never a crash', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record({ key: fc.constantFrom(...Object.keys(sealed)), value: fc.jsonValue() }).map(({ key, value }) => ({
            ...sealed,
            [key]: value,
          })),
        ),
        (envelope) => {
          try {
            decryptExport(envelope, 'x.json', { key: mine, homeKey: true, passphrase: null });
          } catch (error) {
            expect(ConclaveError.isInstance(error)).toBe(true);
            expect(JournalCorruptedError.isInstance(error) || UsageError.isInstance(error)).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
