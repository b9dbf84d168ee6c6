import { describe, expect, it } from 'vitest';
import { EncryptionKeyUnavailableError } from '../spec/errors/encryption-key-unavailable-error.js';
import { createKeyring, generateDataKey, keyIdFor, parseDataKey } from './keyring.js';
import { openSealed, type SealedPlace, sealWith } from './record-cipher.js';

const first = generateDataKey();
const second = generateDataKey();
const keyring = createKeyring({ keys: { [first.id]: first.key, [second.id]: second.key }, current: second.id });
const place: SealedPlace = { sessionId: '0001m84j6ta3tpjd4qpvde', role: 'journal', position: '3-4' };
const text = '{"events":[{"type":"message-added","content":"the secret plan"}]}';

function flipped(sealed: string, at: number): string {
  const bytes = Buffer.from(sealed, 'base64');
  bytes[at] = (bytes[at] as number) ^ 0x01;
  return bytes.toString('base64');
}

describe('sealing stored records', () => {
  it('opens what it sealed, at the place it was sealed for, naming the key', () => {
    const sealed = sealWith(first, place, text);
    expect(sealed.key).toBe(first.id);
    expect(Buffer.from(sealed.sealed, 'base64').toString('latin1')).not.toContain('secret plan');
    const opened = openSealed(keyring, place, sealed, 'journal.jsonl');
    expect(opened.ok && opened.plaintext.toString('utf8')).toBe(text);
  });

  it('sealing the same text twice gives different bytes (a fresh iv each time)', () => {
    expect(sealWith(first, place, text).sealed).not.toBe(sealWith(first, place, text).sealed);
  });

  it('never repeats an iv over thousands of seals, and each of them opens', () => {
    const sealed = Array.from({ length: 3_000 }, () => sealWith(first, place, text));
    const ivs = new Set(sealed.map((value) => Buffer.from(value.sealed, 'base64').subarray(0, 12).toString('hex')));
    expect(ivs.size).toBe(sealed.length);
    for (const value of sealed) expect(openSealed(keyring, place, value, 'journal.jsonl').ok).toBe(true);
  });

  it('a key handed out as a new object over the same bytes seals and opens alike', () => {
    const copy = { id: first.id, key: Uint8Array.from(first.key) };
    const sealed = sealWith(copy, place, text);
    const opened = openSealed(keyring, place, sealed, 'journal.jsonl');
    expect(opened.ok && opened.plaintext.toString('utf8')).toBe(text);
  });

  it('a changed byte anywhere (iv, text or tag) fails its tag', () => {
    const sealed = sealWith(first, place, text);
    const length = Buffer.from(sealed.sealed, 'base64').length;
    for (const at of [0, 11, 12, 20, length - 16, length - 1]) {
      const opened = openSealed(keyring, place, { ...sealed, sealed: flipped(sealed.sealed, at) }, 'journal.jsonl');
      expect(opened).toEqual({ ok: false, problem: expect.stringMatching(/failed its authentication/) });
    }
  });

  it('a record moved from another session, to another seq or another file role fails its tag', () => {
    const sealed = sealWith(first, place, text);
    for (const elsewhere of [
      { ...place, sessionId: '0001m84j6ta3tpjd4qpvdf' },
      { ...place, position: '5-6' },
      { ...place, role: 'snapshot' },
    ]) {
      expect(openSealed(keyring, elsewhere, sealed, 'journal.jsonl').ok).toBe(false);
    }
  });

  it('a record claiming another key id fails its tag even when that key is held', () => {
    const sealed = sealWith(first, place, text);
    expect(openSealed(keyring, place, { ...sealed, key: second.id }, 'journal.jsonl').ok).toBe(false);
  });

  it('a key the keyring does not hold is an error naming the key, the session and the file', () => {
    const stranger = generateDataKey();
    const sealed = sealWith(stranger, place, text);
    const error = (() => {
      try {
        openSealed(keyring, place, sealed, '/home/u/.conclave/sessions/x/journal.jsonl');
      } catch (caught) {
        return caught;
      }
    })();
    expect(EncryptionKeyUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ keyId: stranger.id, sessionId: place.sessionId, code: 'encryption-key-unavailable' });
    expect((error as Error).message).toContain(stranger.id);
    expect((error as Error).message).toContain('/home/u/.conclave/sessions/x/journal.jsonl');
    expect(() => openSealed(null, place, sealed, 'journal.jsonl')).toThrow(stranger.id);
  });
});

describe('keyrings', () => {
  it('a key names itself: the same key has the same id, another key another', () => {
    expect(keyIdFor(first.key)).toBe(first.id);
    expect(first.id).toMatch(/^[0-9a-f]{12}$/);
    expect(second.id).not.toBe(first.id);
  });

  it('reads keys given as base64 or hex, and says what is wrong with anything else', () => {
    const key = Buffer.from(first.key);
    expect(parseDataKey(key.toString('base64'), 'CONCLAVE_ENCRYPTION_KEY')).toEqual(key);
    expect(parseDataKey(`${key.toString('hex')}\n`, 'key file')).toEqual(key);
    expect(() => parseDataKey('hunter2', 'CONCLAVE_ENCRYPTION_KEY')).toThrow(
      /CONCLAVE_ENCRYPTION_KEY does not hold an encryption key: expected 32 bytes/,
    );
    expect(() => parseDataKey(Buffer.alloc(16).toString('base64'), 'key file')).toThrow(/key file/);
  });

  it('a keyring without a current key only reads; one naming a key it lacks is refused', () => {
    const reading = createKeyring({ keys: { [first.id]: first.key } });
    expect(reading.current()).toBeNull();
    expect(reading.get(first.id)?.key).toEqual(first.key);
    expect(reading.get('nope')).toBeNull();
    expect(() => createKeyring({ keys: {}, current: 'abc' })).toThrow(/current key abc is not among/);
  });
});
