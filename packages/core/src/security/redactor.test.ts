import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createRedactor, isSecretEnvName, REDACTED } from './redactor.js';

describe('createRedactor', () => {
  const env = {
    OPENAI_API_KEY: 'opaque-key-value-123456',
    GITHUB_TOKEN: 'tok_abcdefghij',
    DATABASE_PASSWORD: 'hunter2hunter2',
    HOME: '/home/someone',
    SHORT_TOKEN: 'abc',
  };

  it('scrubs the values of secret-looking environment variables anywhere in a value', () => {
    const { redact } = createRedactor({ env });
    const event = {
      type: 'message-added',
      message: { content: 'my key is opaque-key-value-123456, token tok_abcdefghij', tags: ['hunter2hunter2'] },
      nested: [{ deep: ['x opaque-key-value-123456 y'] }],
    };
    const redacted = redact(event);
    const text = JSON.stringify(redacted);
    expect(text).not.toContain('opaque-key-value-123456');
    expect(text).not.toContain('tok_abcdefghij');
    expect(text).not.toContain('hunter2hunter2');
    expect(redacted.message.content).toBe(`my key is ${REDACTED}, token ${REDACTED}`);
    // The input is left as it was.
    expect(event.message.content).toContain('opaque-key-value-123456');
  });

  it('leaves ordinary values and short secrets alone', () => {
    const { redact } = createRedactor({ env });
    const value = { path: '/home/someone', count: 3, ok: true, none: null, word: 'abc' };
    expect(redact(value)).toEqual(value);
  });

  it('scrubs explicit secrets from config', () => {
    const { redactText } = createRedactor({ secrets: ['config-secret-value', undefined, 'short'] });
    expect(redactText('uses config-secret-value twice: config-secret-value')).toBe(
      `uses ${REDACTED} twice: ${REDACTED}`,
    );
    expect(redactText('short stays')).toBe('short stays');
  });

  it('replaces a secret that contains another one whole', () => {
    const { redactText } = createRedactor({ secrets: ['abcdefgh', 'abcdefgh-longer-secret'] });
    expect(redactText('x abcdefgh-longer-secret y')).toBe(`x ${REDACTED} y`);
  });

  it.each([
    ['an OpenAI key', 'key sk-proj-AbCdEfGhIjKlMnOpQrStUv123', 'sk-proj-AbCdEfGhIjKlMnOpQrStUv123'],
    ['an Anthropic key', 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv-xyz', 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv-xyz'],
    ['a bearer header', 'Authorization: Bearer abc.def.ghi-jkl', 'abc.def.ghi-jkl'],
    ['a GitHub token', 'ghp_0123456789abcdefghijABCDEFGHIJ', 'ghp_0123456789abcdefghijABCDEFGHIJ'],
    ['a Slack token', 'xoxb-1234567890-abcdefghij', 'xoxb-1234567890-abcdefghij'],
    ['an AWS key id', 'AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['a password in a URL', 'postgres://app:s3cr3t-pw@db.local:5432/x', 's3cr3t-pw'],
    ['an api key header', 'x-api-key: zzzz-1234-yyyy', 'zzzz-1234-yyyy'],
  ])('scrubs %s by its shape', (_name, text, secret) => {
    const { redactText } = createRedactor();
    const result = redactText(text);
    expect(result).not.toContain(secret);
    expect(result).toContain(REDACTED);
  });

  it('keeps the user name and host of a URL readable', () => {
    const { redactText } = createRedactor();
    expect(redactText('postgres://app:pw123456@db.local/x')).toBe(`postgres://app:${REDACTED}@db.local/x`);
  });

  it('scrubs values stored under secret keys whatever they look like', () => {
    const { redact } = createRedactor();
    expect(redact({ options: { apiKey: 'x1', model: 'gpt-4o' }, headers: { Authorization: 'plain' } })).toEqual({
      options: { apiKey: REDACTED, model: 'gpt-4o' },
      headers: { Authorization: REDACTED },
    });
  });

  it('turns errors into scrubbed plain data', () => {
    const { redact } = createRedactor({ secrets: ['secret-in-error-1'] });
    expect(redact({ error: new Error('failed with secret-in-error-1') })).toEqual({
      error: { name: 'Error', message: `failed with ${REDACTED}` },
    });
  });

  it('recognises secret environment variable names', () => {
    for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'PGPASSWORD']) {
      expect(isSecretEnvName(name)).toBe(true);
    }
    for (const name of ['HOME', 'PATH', 'OPENAI_BASE_URL', 'CONCLAVE_SCRIPTED_LATENCY_MS']) {
      expect(isSecretEnvName(name)).toBe(false);
    }
  });

  it('never lets a known secret through, wherever it sits in a JSON value', () => {
    const secretArbitrary = fc.stringMatching(/^[A-Za-z0-9]{8,40}$/);
    fc.assert(
      fc.property(secretArbitrary, fc.jsonValue(), fc.string(), fc.string(), (secret, json, before, after) => {
        const { redact } = createRedactor({ secrets: [secret] });
        const value = { json, text: `${before}${secret}${after}`, list: [json, { [secret]: secret }] };
        expect(JSON.stringify(redact(value))).not.toContain(secret);
      }),
      { numRuns: 200 },
    );
  });

  it('never lets a known secret through broken over lines or spaced out, reversed or in hex', () => {
    const secretArbitrary = fc.stringMatching(/^[A-Za-z0-9!*()~._-]{8,40}$/);
    const separators = fc.array(fc.constantFrom('\n', ' ', '\r\n', '\t'), { minLength: 1, maxLength: 40 });
    const encodings = [
      (secret: string) => secret,
      (secret: string) => [...secret].reverse().join(''),
      (secret: string) => Buffer.from(secret).toString('hex'),
    ];
    fc.assert(
      fc.property(
        secretArbitrary,
        fc.constantFrom(...encodings),
        separators,
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.string(),
        fc.string(),
        (secret, encode, breaks, places, before, after) => {
          let printed = encode(secret);
          for (const [index, place] of places.entries()) {
            const at = place % (printed.length + 1);
            printed = printed.slice(0, at) + (breaks[index % breaks.length] ?? ' ') + printed.slice(at);
          }
          const { redactText } = createRedactor({ secrets: [secret] });
          const joined = redactText(`${before}<${printed}>${after}`).replace(/\s+/g, '');
          expect(joined).not.toContain(encode(secret));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('scrubs a value every place it is shared, and follows cycles without passing the original through', () => {
    const { redact } = createRedactor({ secrets: ['toString'] });
    const shared = { toString: '', note: 'the key is toString' };
    const output = redact({ first: shared, list: [shared, { toString: 'toString' }] });
    expect(JSON.stringify(output)).not.toContain('toString');
    expect(output.list[0]).toBe(output.first);

    const cyclic: Record<string, unknown> = { note: 'toString here' };
    cyclic.self = cyclic;
    const copy = redact(cyclic);
    expect(copy.note).toBe('[REDACTED] here');
    expect(copy.self).toBe(copy);
  });

  it('keeps a `__proto__` key as data', () => {
    const { redact } = createRedactor({ secrets: ['sk-test-0123456789'] });
    const output = redact(JSON.parse('{"__proto__": {"key": "sk-test-0123456789"}}'));
    expect(JSON.stringify(output)).toBe('{"__proto__":{"key":"[REDACTED]"}}');
  });

  it('scrubs each object key once, and keys holding a secret every time', () => {
    const { redact } = createRedactor({ secrets: ['sk-test-0123456789'] });
    const event = { type: 1, seq: 2, at: 3, key: 4, attempt: 5, 'token sk-test-0123456789': 6 };
    const test = vi.spyOn(RegExp.prototype, 'test');
    try {
      for (let index = 0; index < 100; index += 1) {
        expect(JSON.stringify(redact(event))).toBe(
          '{"type":1,"seq":2,"at":3,"key":4,"attempt":5,"token [REDACTED]":6}',
        );
      }
      // The keys of 100 events of the same shape: each looked at once, not 100 times.
      expect(test.mock.calls.length).toBeLessThanOrEqual(Object.keys(event).length);
    } finally {
      test.mockRestore();
    }
  });

  describe('secrets in other encodings', () => {
    const key = 'sk-test-SECRETVALUE0123456789';
    const { redact, redactText } = createRedactor({ secrets: [key, 'p@ss word/with+chars'] });

    it('scrubs the base64 and base64url forms of a known secret, wherever it sits in encoded data', () => {
      for (const prefix of ['', 'u:', 'us:', 'user:']) {
        const basic = Buffer.from(`${prefix}${key}`).toString('base64');
        const url = Buffer.from(`${prefix}${key}`).toString('base64url');
        const text = redactText(`Authorization header was ${basic} / token=${url}`);
        expect(text).toContain(REDACTED);
        // What is left of the encoded text no longer decodes to the key, nor to most of it.
        for (const leftover of text.match(/[A-Za-z0-9+/_-]{12,}={0,2}/g) ?? []) {
          const decoded = Buffer.from(
            leftover,
            leftover.includes('-') || leftover.includes('_') ? 'base64url' : 'base64',
          ).toString('latin1');
          expect(decoded).not.toContain(key.slice(4, 16));
        }
      }
    });

    it('scrubs URL-encoded forms', () => {
      const text = redactText(
        `GET /login?password=${encodeURIComponent('p@ss word/with+chars')}&x=${'p%40ss+word%2Fwith%2Bchars'}`,
      );
      expect(text).not.toContain('p%40ss');
      expect(text).toContain(REDACTED);
    });

    it.each([
      ['folded over lines (fold -w 12)', (secret: string) => secret.replace(/(.{12})/g, '$1\n')],
      [
        'in JSON \\u escapes',
        (secret: string) =>
          secret.replaceAll('-', '\\u002d').replace(/[A-Z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`),
      ],
      [
        'as lowercase hex over lines (xxd -p)',
        (secret: string) =>
          Buffer.from(secret)
            .toString('hex')
            .replace(/(.{20})/g, '$1\n'),
      ],
      ['as uppercase hex', (secret: string) => Buffer.from(secret).toString('hex').toUpperCase()],
      ['reversed', (secret: string) => [...secret].reverse().join('')],
      ['spaced out', (secret: string) => [...secret].join(' ')],
      [
        'as base64 wrapped over lines',
        (secret: string) =>
          Buffer.from(`user:${secret}`)
            .toString('base64')
            .replace(/(.{16})/g, '$1\r\n'),
      ],
      [
        'URL-encoded with every reserved character',
        (secret: string) =>
          [...secret]
            .map((c) => (/[A-Za-z0-9]/.test(c) ? c : `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
            .join(''),
      ],
      ['URL-encoded twice', (secret: string) => encodeURIComponent(encodeURIComponent(secret).replaceAll('!', '%21'))],
      ['cut at its head (the last 24 characters kept)', (secret: string) => `...\n${secret.slice(-24)}\nnext line`],
      ['cut at its tail (the first 14 characters kept)', (secret: string) => `${secret.slice(0, 14)}`],
      [
        'masked with only its head and tail shown',
        (secret: string) => `${secret.slice(0, 12)}########${secret.slice(-12)}`,
      ],
    ])('scrubs a known secret %s', (_form, encode) => {
      const secret = 'svc!token-Alpha.Beta~Gamma(1)*delta_2345';
      const redactor = createRedactor({ env: { MY_SERVICE_TOKEN: secret } });
      const printed = encode(secret);
      const text = redactor.redactText(`before <${printed}> after`);
      expect(text).toContain(REDACTED);
      expect(text.startsWith('before <')).toBe(true);
      expect(text.endsWith('> after')).toBe(true);
      // Nothing of 12 characters or more of what was printed is left.
      const leftover = text.slice('before <'.length, -'> after'.length).replaceAll(REDACTED, '\u0000');
      for (let start = 0; start + 12 <= printed.length; start += 1) {
        expect(leftover).not.toContain(printed.slice(start, start + 12));
      }
    });

    it('leaves fragments shorter than 12 characters and ordinary text alone', () => {
      const redactor = createRedactor({ env: { MY_SERVICE_TOKEN: 'svc-token-0123456789abcdef' } });
      const ordinary = 'svc-token-01 is a prefix of 12, svc-token-0 is not; 0123456789 and fedcba here';
      expect(redactor.redactText('id svc-token-0 and ef end')).toBe('id svc-token-0 and ef end');
      expect(redactor.redactText(ordinary)).toBe(ordinary.replace('svc-token-01', REDACTED));
    });

    it('replaces a secret-named variable holding a path whole, never by its head', () => {
      const redactor = createRedactor({ env: { POSTGRES_PASSWORD_FILE: '/run/secrets/postgres-password' } });
      expect(redactor.redactText('read /run/secrets/postgres-password')).toBe(`read ${REDACTED}`);
      expect(redactor.redactText('wrote /run/secrets/other-file')).toBe('wrote /run/secrets/other-file');
    });

    it('scrubs masked forms of a known secret and of key shapes, as servers print them', () => {
      const body = {
        error: { message: `Incorrect API key provided: sk-test-SE****6789. Also seen: sk-proj-…abcd and AKIA...WXYZ` },
      };
      const text = JSON.stringify(redact(body));
      expect(text).not.toContain('SE****6789');
      expect(text).not.toContain('…abcd');
      expect(text).not.toContain('AKIA...WXYZ');
      // Masks that are not a secret's head and tail stay as written.
      expect(redactText('rating: good****better, path a...b')).toBe('rating: good****better, path a...b');
    });
  });
});
