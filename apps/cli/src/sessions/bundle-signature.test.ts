import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signatureProblem, signBundle } from './bundle-signature.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');

const bundle = {
  format: 'conclave-session',
  formatVersion: 3,
  sessionId: '0001m84j6ta3tpjd4qpvde',
  events: [
    { type: 'session-created', seq: 1, header: { id: '0001m84j6ta3tpjd4qpvde', title: 'Plan' } },
    { type: 'message-added', seq: 2, message: { role: 'user', content: 'Plan the migration' } },
  ],
  blobs: { ['a'.repeat(64)]: 'aGVsbG8=' },
  lastSeq: 2,
};

/** Every leaf of a JSON value, by its path. */
function leaves(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) =>
      leaves(item, [...at, Array.isArray(value) ? Number(key) : key]),
    );
  return [at];
}

function changedAt(value: unknown, at: (string | number)[], replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const key of at.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[at[at.length - 1] as string | number] = replacement;
  return copy;
}

describe('the signature of a bundle', () => {
  const signed = { ...bundle, signature: signBundle(bundle, privateKey, publicKey) };

  it('holds however the file is laid out (indentation, key order)', () => {
    const reordered = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(signed).reverse()), null, 4));
    expect(signatureProblem(reordered, signed.signature)).toBeNull();
  });

  it('breaks at any change of any field, event or blob', () => {
    const paths = leaves(bundle);
    fc.assert(
      fc.property(fc.constantFrom(...paths), fc.jsonValue(), (at, replacement) => {
        const original = at.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], bundle);
        fc.pre(JSON.stringify(replacement) !== JSON.stringify(original));
        const changed = changedAt(signed, at, replacement) as Record<string, unknown>;
        expect(signatureProblem(changed, signed.signature)).toMatch(/does not match its content/);
      }),
    );
    expect(signatureProblem({ ...signed, exportedAt: 'later' }, signed.signature)).toMatch(/does not match/);
  });

  it('names a key that is not the one it carries', () => {
    const other = generateKeyPairSync('ed25519');
    const forged = {
      ...signed.signature,
      fingerprint: signBundle(bundle, other.privateKey, other.publicKey).fingerprint,
    };
    expect(signatureProblem(signed, forged)).toMatch(/names the key .* but carries another/);
  });
});
