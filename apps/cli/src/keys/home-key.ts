// This home's key pair (`<home>/keys/signing-key.pem`, 0600 in a 0700 folder): an Ed25519
// key that signs the bundles `sessions export` writes, and an X25519 key that opens the
// exports others encrypt for this home. Both private keys are PKCS#8 PEM blocks in the one
// file; their public halves travel as a public key file (`keys export-public`): two PEM
// blocks, or one line `conclave-public-key ed25519:<key> x25519:<key>`.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { closeSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { FileNotFoundError, UsageError } from '@resume/core/spec';
import { readUserFile, USER_FILE_LIMITS } from '@resume/runner';

export const KEYS_FOLDER = 'keys';
export const SIGNING_KEY_FILE = 'signing-key.pem';

const ONE_LINE_PREFIX = 'conclave-public-key';

export interface HomeKey {
  file: string;
  /** Ed25519: signs exports (absent in a file that holds only an X25519 key). */
  signing: KeyObject | null;
  /** X25519: opens exports encrypted for this home (absent in a file made by other tools). */
  receiving: KeyObject | null;
  publicKeys: PublicKeys;
}

export interface PublicKeys {
  signing: KeyObject | null;
  receiving: KeyObject | null;
}

export function signingKeyFile(home: string): string {
  return path.join(home, KEYS_FOLDER, SIGNING_KEY_FILE);
}

/** Makes this home's key pair; refuses to replace one (exports signed with it would no longer verify as this home's). */
export function createSigningKey(home: string): { file: string; fingerprint: string } {
  const file = signingKeyFile(home);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const signing = generateKeyPairSync('ed25519').privateKey;
  const receiving = generateKeyPairSync('x25519').privateKey;
  const text = [signing, receiving].map((key) => key.export({ format: 'pem', type: 'pkcs8' }).toString()).join('');
  let descriptor: number;
  try {
    descriptor = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new UsageError(`This home already has a signing key: ${file}.`, {
      hint: 'Keep it: exports it signed verify only with it. Its public key: conclave keys export-public',
    });
  }
  try {
    writeSync(descriptor, text);
  } finally {
    closeSync(descriptor);
  }
  return { file, fingerprint: fingerprintOf(createPublicKey(signing)) };
}

/** This home's key, or null when it has none (`keys init` makes it). */
export function readHomeKey(home: string): HomeKey | null {
  const file = signingKeyFile(home);
  try {
    return readPrivateKeyFile(file);
  } catch (error) {
    if (FileNotFoundError.isInstance(error)) return null;
    throw error;
  }
}

/** A warning when others may read a private key file (a copy, a `chmod`, a restored backup), else null. */
export function exposureOf(file: string): string | null {
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) === 0) return null;
  return `The private key ${file} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}); make it private: chmod 600 ${file}`;
}

/** A private key file: this home's (or another's) `signing-key.pem`, or any PEM file with an Ed25519 or X25519 key. */
export function readPrivateKeyFile(file: string): HomeKey {
  const blocks = pemBlocks(readUserFile(file, { what: 'private key file', maxBytes: USER_FILE_LIMITS.text }));
  const keys = blocks
    .filter((block) => block.label === 'PRIVATE KEY')
    .map((block) => parseKey(() => createPrivateKey(block.text), file));
  const signing = keys.find((key) => key.asymmetricKeyType === 'ed25519') ?? null;
  const receiving = keys.find((key) => key.asymmetricKeyType === 'x25519') ?? null;
  if (!signing && !receiving)
    throw new UsageError(
      blocks.some((block) => block.label === 'PUBLIC KEY')
        ? `${file} holds only public keys; opening an encrypted export takes the private key.`
        : `${file} holds no Ed25519 or X25519 private key.`,
      {
        hint: `Give the keys/${SIGNING_KEY_FILE} of the home the export was encrypted for (made by conclave keys init).`,
      },
    );
  return {
    file,
    signing,
    receiving,
    publicKeys: {
      signing: signing ? createPublicKey(signing) : null,
      receiving: receiving ? createPublicKey(receiving) : null,
    },
  };
}

/** A public key file as `keys export-public` writes it (PEM), or its one-line form. */
export function formatPublicKeys(keys: PublicKeys, form: 'pem' | 'one-line'): string {
  if (form === 'one-line') {
    const parts = [
      keys.signing ? `ed25519:${rawKey(keys.signing)}` : null,
      keys.receiving ? `x25519:${rawKey(keys.receiving)}` : null,
    ].filter((part) => part !== null);
    return `${ONE_LINE_PREFIX} ${parts.join(' ')}\n`;
  }
  const lines = [
    'Conclave public keys: the Ed25519 key checks signed exports, the X25519 key encrypts exports for its home.',
  ];
  if (keys.signing) lines.push(`Signing key ${fingerprintOf(keys.signing)}`);
  const blocks = [keys.signing, keys.receiving]
    .filter((key) => key !== null)
    .map((key) => key.export({ format: 'pem', type: 'spki' }).toString());
  return `${lines.join('\n')}\n${blocks.join('')}`;
}

/** Reads a public key file (either form, or any PEM file with Ed25519 / X25519 public keys). */
export function readPublicKeyFile(file: string): PublicKeys {
  return parsePublicKeys(readUserFile(file, { what: 'public key file', maxBytes: USER_FILE_LIMITS.text }), file);
}

export function parsePublicKeys(text: string, file: string): PublicKeys {
  const keys: KeyObject[] = [];
  const line = text.trim();
  if (line.startsWith(`${ONE_LINE_PREFIX} `)) {
    for (const part of line.split(/\s+/).slice(1)) {
      const match = /^(ed25519|x25519):([A-Za-z0-9_-]{43})$/.exec(part);
      if (!match)
        throw new UsageError(
          `${file}: "${part.slice(0, 60)}" is not a key of the form ed25519:<key> or x25519:<key>.`,
          {
            hint: 'Ask for the file again: conclave keys export-public [--one-line]',
          },
        );
      keys.push(publicKeyFromRaw(match[1] === 'ed25519' ? 'Ed25519' : 'X25519', match[2] as string));
    }
  } else {
    for (const block of pemBlocks(text)) {
      if (block.label === 'PRIVATE KEY')
        throw new UsageError(`${file} holds a private key; share and trust only public keys.`, {
          hint: 'Write the public key file with: conclave keys export-public -o <file>',
        });
      if (block.label === 'PUBLIC KEY') keys.push(parseKey(() => createPublicKey(block.text), file));
    }
  }
  const signing = keys.find((key) => key.asymmetricKeyType === 'ed25519') ?? null;
  const receiving = keys.find((key) => key.asymmetricKeyType === 'x25519') ?? null;
  if (!signing && !receiving)
    throw new UsageError(`${file} holds no Ed25519 or X25519 public key.`, {
      hint: 'The public key file is written by conclave keys export-public (PEM, or --one-line).',
    });
  return { signing, receiving };
}

/** `SHA256:<base64>` of the raw public key, as ssh prints fingerprints. */
export function fingerprintOf(publicKey: KeyObject): string {
  const raw = Buffer.from(rawKey(publicKey), 'base64url');
  return `SHA256:${createHash('sha256').update(raw).digest('base64').replace(/=+$/, '')}`;
}

/** The 32 bytes of an Ed25519 or X25519 public key, base64url. */
export function rawKey(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: 'jwk' });
  return String(jwk.x);
}

export function publicKeyFromRaw(curve: 'Ed25519' | 'X25519', raw: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: curve, x: raw }, format: 'jwk' });
}

function pemBlocks(text: string): { label: string; text: string }[] {
  const blocks: { label: string; text: string }[] = [];
  for (const match of text.matchAll(/-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END \1-----/g))
    blocks.push({ label: match[1] as string, text: match[0] });
  return blocks;
}

function parseKey(parse: () => KeyObject, file: string): KeyObject {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(`${file} holds a key that cannot be read: ${(error as Error).message}.`, {
      hint: 'The file may be cut short or edited; ask for it again.',
      cause: error,
    });
  }
}
