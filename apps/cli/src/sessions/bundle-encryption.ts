// An encrypted export: the signed bundle's text sealed with AES-256-GCM, under a key agreed
// with the recipient's X25519 public key (an ephemeral key pair, HKDF-SHA256) or derived from a
// passphrase (scrypt). The envelope says which, and for whom, so an import can say what it
// needs; everything in it but the ciphertext and its tag is authenticated with it.
import {
  createCipheriv,
  createDecipheriv,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
  scryptSync,
} from 'node:crypto';
import { JournalCorruptedError, UsageError } from '@resume/core/spec';
import { z } from 'zod';
import { fingerprintOf, type HomeKey, publicKeyFromRaw, rawKey } from '../keys/home-key.js';

export const ENCRYPTED_FORMAT = 'conclave-session-encrypted' as const;
const ENCRYPTED_FORMAT_VERSION = 1 as const;
const HKDF_INFO = 'conclave-session-encrypted v1';
/** 2^17 × 8 × 128 bytes = 128 MiB of memory per guess. */
const SCRYPT = { N: 2 ** 17, r: 8, p: 1 } as const;
const SCRYPT_MAX_N = 2 ** 20;
const SCRYPT_MAX_MEMORY = 256 * 2 ** 20;
export const MIN_PASSPHRASE_LENGTH = 8;

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/);
const rawKeySchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

const keyAgreementSchema = z.discriminatedUnion('method', [
  z.object({
    method: z.literal('x25519'),
    /** Fingerprint and key of the recipient's X25519 public key. */
    recipient: z.string(),
    recipientKey: rawKeySchema,
    ephemeralKey: rawKeySchema,
  }),
  z.object({
    method: z.literal('scrypt'),
    salt: base64,
    N: z
      .number()
      .int()
      .min(2)
      .max(SCRYPT_MAX_N)
      .refine((value) => (value & (value - 1)) === 0, 'a power of 2'),
    r: z.number().int().min(1).max(32),
    p: z.number().int().min(1).max(4),
  }),
]);

const envelopeSchema = z.object({
  format: z.literal(ENCRYPTED_FORMAT),
  formatVersion: z.literal(ENCRYPTED_FORMAT_VERSION),
  cipher: z.literal('aes-256-gcm'),
  keyAgreement: keyAgreementSchema,
  /** 12 bytes. */
  iv: z.string().regex(/^[A-Za-z0-9+/]{16}$/, '12 bytes in base64'),
  /** The full 16-byte tag: a shorter one would be easier to forge. */
  tag: z.string().regex(/^[A-Za-z0-9+/]{22}==$/, '16 bytes in base64'),
  ciphertext: base64,
});
type Envelope = z.infer<typeof envelopeSchema>;

export type Sealing = { recipient: KeyObject } | { passphrase: string };

/** What can open an envelope: a private key file (or this home's key), a passphrase. */
export interface Opening {
  key: HomeKey | null;
  /** True when the key is this home's own (not given with --key). */
  homeKey: boolean;
  passphrase: string | null;
}

export function isEncryptedExport(raw: unknown): boolean {
  return (raw as { format?: unknown } | null)?.format === ENCRYPTED_FORMAT;
}

export function encryptExport(text: string, sealing: Sealing): string {
  const iv = randomBytes(12);
  let keyAgreement: Envelope['keyAgreement'];
  let key: Buffer;
  if ('recipient' in sealing) {
    const ephemeral = generateKeyPairSync('x25519');
    keyAgreement = {
      method: 'x25519',
      recipient: fingerprintOf(sealing.recipient),
      recipientKey: rawKey(sealing.recipient),
      ephemeralKey: rawKey(ephemeral.publicKey),
    };
    key = agreedKey(ephemeral.privateKey, sealing.recipient, keyAgreement);
  } else {
    keyAgreement = { method: 'scrypt', salt: randomBytes(16).toString('base64'), ...SCRYPT };
    key = passphraseKey(sealing.passphrase, keyAgreement);
  }
  const header = { format: ENCRYPTED_FORMAT, formatVersion: ENCRYPTED_FORMAT_VERSION, cipher: 'aes-256-gcm' as const };
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additionalData({ ...header, keyAgreement, iv: iv.toString('base64') }));
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  const envelope: Envelope = {
    ...header,
    keyAgreement,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
  return `${JSON.stringify(envelope, null, 2)}\n`;
}

/**
 * The bundle's text inside an envelope, and whether a key or a passphrase opened it; errors say
 * what the file needs and what was given.
 */
export function decryptExport(
  raw: unknown,
  file: string,
  opening: Opening,
): { text: string; openedWith: 'key' | 'passphrase' } {
  const parsed = envelopeSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw damagedEnvelope(file, `its encryption field ${issue?.path.join('.')} is invalid: ${issue?.message}`);
  }
  const envelope = parsed.data;
  const agreement = envelope.keyAgreement;
  let key: Buffer;
  if (agreement.method === 'x25519') {
    const privateKey = receivingKey(agreement, file, opening);
    try {
      key = agreedKey(privateKey, publicKeyFromRaw('X25519', agreement.ephemeralKey), agreement);
    } catch {
      throw damagedEnvelope(file, 'its ephemeral key is not a usable X25519 key');
    }
  } else {
    if (opening.passphrase === null)
      throw new UsageError(`${file} is encrypted with a passphrase.`, {
        hint: 'Give it: --passphrase-file <file> (its first line), or --passphrase <text>.',
      });
    // A file may ask for any cost: more memory than an export of ours ever needs is refused, not tried.
    if (128 * agreement.N * agreement.r > SCRYPT_MAX_MEMORY)
      throw damagedEnvelope(
        file,
        `its scrypt parameters ask for more than ${SCRYPT_MAX_MEMORY / 2 ** 20} MiB of memory`,
      );
    key = passphraseKey(opening.passphrase, agreement);
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64'));
  decipher.setAAD(additionalData({ ...envelope, tag: undefined, ciphertext: undefined }));
  decipher.setAuthTag(Buffer.from(envelope.tag, 'base64'));
  try {
    const plain = Buffer.concat([decipher.update(Buffer.from(envelope.ciphertext, 'base64')), decipher.final()]);
    return { text: plain.toString('utf8'), openedWith: agreement.method === 'scrypt' ? 'passphrase' : 'key' };
  } catch {
    if (agreement.method === 'scrypt')
      throw new UsageError(
        `The passphrase does not open ${file}: it is not the one the export was encrypted with (or the file was changed since).`,
        { hint: 'Nothing was imported. Check the passphrase (a --passphrase-file gives its first line).' },
      );
    throw damagedEnvelope(file, 'its encrypted content does not match its authentication tag');
  }
}

function damagedEnvelope(file: string, problem: string): JournalCorruptedError {
  return new JournalCorruptedError(
    { sessionId: null, file, offset: null, problem },
    { hint: 'Nothing was imported. The file was changed after it was encrypted; ask for the export again.' },
  );
}

/** The envelope's fields that are not secret, authenticated with the ciphertext. */
function additionalData(header: Record<string, unknown>): Buffer {
  const { format, formatVersion, cipher, keyAgreement, iv } = header;
  return Buffer.from(JSON.stringify({ format, formatVersion, cipher, keyAgreement, iv }), 'utf8');
}

function receivingKey(
  agreement: Extract<Envelope['keyAgreement'], { method: 'x25519' }>,
  file: string,
  opening: Opening,
): KeyObject {
  const key = opening.key;
  const fingerprint = key?.publicKeys.receiving ? fingerprintOf(key.publicKeys.receiving) : null;
  if (key?.receiving && fingerprint === agreement.recipient) return key.receiving;
  const fix = `conclave sessions import ${file} --key <its private key file>`;
  if (!key || opening.homeKey)
    throw new UsageError(
      `${file} is encrypted for the key ${agreement.recipient}, ${fingerprint ? `not this home's (${fingerprint})` : 'and this home has no key of its own'}.`,
      {
        hint: `Import it with the private key it was encrypted for: ${fix}; or ask for an export for this home: its public key (conclave keys export-public -o my-key.pub) goes to the sender's conclave sessions export --encrypt-for.`,
      },
    );
  throw new UsageError(
    `The key in ${key.file} (${fingerprint ?? 'no X25519 key'}) is not the one ${file} was encrypted for (${agreement.recipient}).`,
    { hint: `Give the private key it was encrypted for: ${fix}` },
  );
}

function agreedKey(
  privateKey: KeyObject,
  publicKey: KeyObject,
  agreement: Extract<Envelope['keyAgreement'], { method: 'x25519' }>,
): Buffer {
  const shared = diffieHellman({ privateKey, publicKey });
  const salt = Buffer.concat([
    Buffer.from(agreement.ephemeralKey, 'base64url'),
    Buffer.from(agreement.recipientKey, 'base64url'),
  ]);
  return Buffer.from(hkdfSync('sha256', shared, salt, HKDF_INFO, 32));
}

function passphraseKey(passphrase: string, agreement: Extract<Envelope['keyAgreement'], { method: 'scrypt' }>): Buffer {
  return scryptSync(passphrase.normalize('NFC'), Buffer.from(agreement.salt, 'base64'), 32, {
    N: agreement.N,
    r: agreement.r,
    p: agreement.p,
    maxmem: SCRYPT_MAX_MEMORY + 2 ** 20,
  });
}
