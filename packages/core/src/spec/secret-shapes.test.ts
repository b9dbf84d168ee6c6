import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mayHoldSecretShape, REDACTED, SECRET_SHAPES, scrubSecrets } from './secret-shapes.js';

/** What scrubSecrets did to a text without known secrets before it skipped texts: every shape, always. */
function everyShape(text: string): string {
  let result = text;
  for (const shape of SECRET_SHAPES) result = result.replace(shape.pattern, shape.replace);
  return result;
}

// Texts each shape matches, in the cases and separators the shapes accept.
const shapeExamples = [
  'Authorization: Bearer abcdefgh12345678',
  'Basic dXNlcjpwYXNzd29yZA==',
  'key sk-abcdefghijklmnop1234',
  'sk-proj-ABCDEFGHIJKLMNOPQRST',
  'sk-ant-api03-abcdefghijklmnopqr',
  'ghp_abcdefghijklmnopqrstuvwx',
  'gho_ABCDEFGHIJKLMNOPQRSTUVWX',
  'github_pat_11ABCDEFG0123456789_abcdef',
  'xoxb-1234567890-abcdef',
  'xoxp-ABCDEFGHIJKL',
  'AKIAABCDEFGHIJKLMNOP',
  'ASIA1234567890ABCDEF',
  'AIzaSyA-abcdefghijklmnopqrstuvwxyz01234',
  'root:$6$abcdefgh$0123456789abcdefABCDEF./:19000:0:99999:7:::',
  '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy',
  'postgres://user:hunter2@db.example.com/app',
  'HTTPS://Admin:Secret@Example.com',
  'x-api-key: abcd1234',
  'X-API-KEY=abcd1234',
  'api_key=abcd1234',
  'apiKey: "abcd1234"',
  'API-KEY=abcd1234',
  '"password": "hunter22"',
  'PASSWD=abcd1234',
  'client_secret=abcd1234',
  'Client-Secret: abcd1234',
  'access_token=abcd1234',
  'ACCESSTOKEN=abcd1234',
];

const alphabet = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:/@=. "\'+*…•'];
const shapeText = fc.oneof(
  fc.constantFrom(...shapeExamples),
  fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 60 }),
  fc
    .tuple(fc.string({ maxLength: 12 }), fc.constantFrom(...shapeExamples), fc.string({ maxLength: 12 }))
    .map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

describe('scrubSecrets', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('replaces every shape it replaced before, in every example', () => {
    for (const example of shapeExamples) {
      expect(mayHoldSecretShape(example), example).toBe(true);
      const scrubbed = scrubSecrets(example);
      expect(scrubbed, example).toContain(REDACTED);
      expect(scrubbed, example).toBe(everyShape(example));
    }
  });

  it('gives what applying every shape gives, on arbitrary and hostile texts', () => {
    fc.assert(
      fc.property(shapeText, (text) => {
        expect(scrubSecrets(text)).toBe(everyShape(text));
        // Whatever a shape changes, the anchors saw first.
        if (everyShape(text) !== text) expect(mayHoldSecretShape(text)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('runs no shape over a text that cannot hold one (keys, ids, times, commands)', () => {
    const replace = vi.spyOn(RegExp.prototype, Symbol.replace);
    for (const text of ['type', 'message-added', '2026-11-23T21:33:11.276Z', '0001m8557gqctgqptpmzxb', 'npm test']) {
      expect(scrubSecrets(text)).toBe(text);
    }
    expect(replace).not.toHaveBeenCalled();
    expect(scrubSecrets('access_token=abcd1234')).toBe(`access_token=${REDACTED}`);
    expect(replace).toHaveBeenCalled();
  });
});
