// The signature of an exported bundle (format 3): Ed25519 over the sha256 of the bundle's
// canonical JSON without its `signature` field (keys sorted, no spaces), so any change to any
// field, event or blob breaks it, while re-indenting the file does not. Who signed is said by
// comparing the key with this home's own and the keys it trusts.
import { createHash, type KeyObject, sign, verify } from 'node:crypto';
import { z } from 'zod';
import { fingerprintOf, type HomeKey, publicKeyFromRaw, rawKey } from '../keys/home-key.js';
import { listTrustedKeys } from '../keys/trusted-keys.js';

/** What is signed: a domain name, then the digest, so a signature over anything else never fits. */
const SIGNED_PREFIX = 'conclave-session-bundle\n';

export const bundleSignatureSchema = z.object({
  algorithm: z.literal('ed25519'),
  /** The signer's raw public key, base64url. */
  publicKey: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  /** `SHA256:…` of the public key, for people reading the file; checked against the key. */
  fingerprint: z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/),
  value: z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/),
});
export type BundleSignature = z.infer<typeof bundleSignatureSchema>;

export type Signer =
  | { status: 'this-home'; fingerprint: string }
  | { status: 'trusted'; name: string; fingerprint: string }
  | { status: 'unknown'; fingerprint: string }
  | { status: 'unsigned' };

export function signBundle(
  bundle: Record<string, unknown>,
  signingKey: KeyObject,
  publicKey: KeyObject,
): BundleSignature {
  return {
    algorithm: 'ed25519',
    publicKey: rawKey(publicKey),
    fingerprint: fingerprintOf(publicKey),
    value: sign(null, signedMessage(bundle), signingKey).toString('base64'),
  };
}

/** The problem with a bundle's signature, or null when it holds. `raw` is the bundle as read. */
export function signatureProblem(raw: Record<string, unknown>, signature: BundleSignature): string | null {
  let publicKey: KeyObject;
  try {
    publicKey = publicKeyFromRaw('Ed25519', signature.publicKey);
  } catch {
    return 'its signature carries a key that is not an Ed25519 public key';
  }
  if (fingerprintOf(publicKey) !== signature.fingerprint)
    return `its signature names the key ${signature.fingerprint} but carries another`;
  const { signature: _signature, ...content } = raw;
  let holds = false;
  try {
    holds = verify(null, signedMessage(content), publicKey, Buffer.from(signature.value, 'base64'));
  } catch {
    // A key or signature OpenSSL cannot even read proves nothing: the same as one that does not fit.
  }
  return holds ? null : `its signature does not match its content (signed by ${signature.fingerprint})`;
}

/** Who signed a bundle whose signature holds, as this home knows the key. */
export function signerOf(signature: BundleSignature | null | undefined, home: string, homeKey: HomeKey | null): Signer {
  if (!signature) return { status: 'unsigned' };
  const fingerprint = signature.fingerprint;
  if (homeKey?.publicKeys.signing && fingerprintOf(homeKey.publicKeys.signing) === fingerprint)
    return { status: 'this-home', fingerprint };
  const trusted = listTrustedKeys(home).find((key) => key.fingerprint === fingerprint);
  return trusted ? { status: 'trusted', name: trusted.name, fingerprint } : { status: 'unknown', fingerprint };
}

export function describeSigner(signer: Signer): string {
  switch (signer.status) {
    case 'this-home':
      return 'signed by this home';
    case 'trusted':
      return `signed by ${signer.name} (trusted)`;
    case 'unknown':
      return `signed by an unknown key ${signer.fingerprint}`;
    case 'unsigned':
      return 'unsigned';
  }
}

function signedMessage(content: unknown): Buffer {
  const digest = createHash('sha256').update(canonicalJson(content)).digest('hex');
  return Buffer.from(`${SIGNED_PREFIX}${digest}`, 'utf8');
}

/** JSON with every object's keys sorted: the same data gives the same text however it was laid out. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
