// End to end: sessions run with secrets in the environment, models that echo them, errors that
// contain them, large outputs and forks; then every byte handed to the store and every byte
// read back from it is scanned. No secret may appear anywhere (docs/architecture.md#secrets-and-stored-data).

import { createEngine, createRedactor } from '@resume/core';
import { ProviderError, type SessionStore } from '@resume/core/spec';
import { createMemoryStore, createMockModel } from '@resume/core/testing';
import { describe, expect, it } from 'vitest';
import { createRunner } from '../runner/runner.js';

const OPENAI_KEY = 'sk-proj-OpenAiSecretKey0123456789abcdef';
const ANTHROPIC_KEY = 'opaque-anthropic-credential-42424242';
const GITHUB_TOKEN = 'tok-github-9f8e7d6c5b4a';
const CONFIG_SECRET = 'config-store-password-77';
const secrets = [OPENAI_KEY, ANTHROPIC_KEY, GITHUB_TOKEN, CONFIG_SECRET];
const env = { OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY, GITHUB_TOKEN, HOME: '/home/user' };

// Bytes become their text (a Buffer's own toJSON would hide its content from the scan).
const textOf = (value: unknown): string =>
  value instanceof Uint8Array
    ? Buffer.from(value).toString('utf8')
    : Array.isArray(value)
      ? value.map(textOf).join(' ')
      : (JSON.stringify(value) ?? '');

/** Wraps a store so every argument passed to it is kept as text (what any store would write). */
function recordingStore(inner: SessionStore): { store: SessionStore; written: string[] } {
  const written: string[] = [];
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        written.push(`${String(property)} ${textOf(args)}`);
        return (value as (...parameters: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, written };
}

/** Everything the store gives back: events, headers, summaries, snapshots and blobs of every session. */
async function readEverything(store: SessionStore): Promise<string> {
  const parts: string[] = [];
  const summaries = await store.list({});
  parts.push(textOf(summaries));
  for (const summary of summaries) {
    const events = [];
    for await (const event of store.read(summary.id)) events.push(event);
    parts.push(textOf(events), textOf(await store.getHeader(summary.id)), textOf(await store.getSnapshot(summary.id)));
    for (const event of events) {
      const blob =
        'outputBlob' in event
          ? event.outputBlob
          : 'blob' in event
            ? event.blob
            : 'promptBlob' in event
              ? event.promptBlob
              : undefined;
      if (typeof blob === 'string') parts.push(textOf(await store.getBlob(blob)));
    }
  }
  return parts.join('\n');
}

/** Where a secret leaked, with a little context, or null. */
const leakIn = (text: string): string | null => {
  for (const secret of secrets) {
    const index = text.indexOf(secret);
    if (index >= 0) return `${secret.slice(0, 6)}… in: ${text.slice(Math.max(0, index - 120), index)}`;
  }
  return null;
};

describe('no secret reaches the store', () => {
  it('across discussion runs, failed calls, step outputs, blobs, tool events and forks', async () => {
    const { store, written } = recordingStore(createMemoryStore());
    const redactor = createRedactor({ env, secrets: [CONFIG_SECRET] });
    const engine = createEngine({ store, redact: redactor.redact, snapshotEvery: 5, blobThreshold: 256 });

    // Models that echo the keys back and quote their input.
    const echo = createMockModel({
      modelId: 'gpt-4o',
      provider: 'openai',
      respond: (request) => {
        if (request.metadata?.role === 'judge') {
          return `VERDICT: CONSENSUS\nFinal solution: rotate ${ANTHROPIC_KEY} and keep Authorization: Bearer ${OPENAI_KEY}`;
        }
        const last = request.messages.at(-1)?.content ?? '';
        return `I was configured with ${OPENAI_KEY}; you said: ${last.slice(0, 200)}`;
      },
    });
    // Prompts kept for traces too (as with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true).
    const runner = createRunner({ engine, models: () => echo, workspaceDir: process.cwd(), capturePrompts: true });
    const completed = await runner.start({
      mode: 'discussion',
      task: `Audit the deploy that used ${GITHUB_TOKEN} and postgres://app:${CONFIG_SECRET}@db/prod`,
      title: `audit ${GITHUB_TOKEN}`,
      record: { provider: 'openai', apiKey: OPENAI_KEY, storeUrl: `postgres://app:${CONFIG_SECRET}@db/prod` },
    });
    expect(completed.status).toBe('completed');

    // A provider error whose text carries a key.
    const failing = createMockModel({
      respond: () =>
        new ProviderError({
          reason: 'authentication',
          provider: 'openai',
          message: `Incorrect API key provided: ${OPENAI_KEY}`,
        }),
    });
    const failed = await createRunner({ engine, models: () => failing, workspaceDir: process.cwd() }).start({
      mode: 'discussion',
      task: 'Anything',
    });
    expect(failed.status).toBe('failed');

    // The engine directly: messages, data, tool events, retried failures, large outputs, a fork.
    const session = await engine.createSession({ title: 'direct', mode: 'custom', options: { token: GITHUB_TOKEN } });
    session.addMessage({ role: 'user', content: `header x-api-key: ${ANTHROPIC_KEY}` });
    session.record({ type: 'data-set', key: 'notes', value: { list: [`env ${GITHUB_TOKEN}`], [ANTHROPIC_KEY]: 1 } });
    session.record({
      type: 'tool-call-started',
      callId: 'c1',
      name: 'run_command',
      args: { command: `curl -H "Authorization: Bearer ${OPENAI_KEY}"` },
    });
    session.record({
      type: 'tool-call-completed',
      callId: 'c1',
      name: 'run_command',
      result: { stdout: ANTHROPIC_KEY },
    });
    let attempts = 0;
    await session.step(
      'flaky',
      async () => {
        attempts += 1;
        if (attempts === 1) throw new Error(`request failed with key ${ANTHROPIC_KEY}`);
        return { ok: true, echo: GITHUB_TOKEN };
      },
      { retry: { attempts: 2 }, sleep: async () => {} },
    );
    await session.step('large', async () => ({ text: `${'x'.repeat(1000)} ${OPENAI_KEY} ${'y'.repeat(1000)}` }));
    const checkpoint = await session.checkpoint(`after ${CONFIG_SECRET}`);
    const child = await session.fork({ at: checkpoint, title: `branch ${GITHUB_TOKEN}`, replay: 'keyed' });
    child.addMessage({ role: 'assistant', content: `child sees ${OPENAI_KEY}`, speaker: 'a' });
    await child.complete();
    await child.close();
    await session.fail(new Error(`gave up: ${CONFIG_SECRET}`));
    await session.close();

    expect(written.length).toBeGreaterThan(10);
    expect(leakIn(written.join('\n'))).toBeNull();
    const stored = await readEverything(store);
    expect(stored).toContain('[REDACTED]');
    expect(stored).toContain('"messages":[');
    expect(leakIn(stored)).toBeNull();
  });
});
