import { describe, expect, it } from 'vitest';
import { SessionDeletedError } from '../spec/index.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createEngine } from './engine.js';

describe('a session deleted from under its writer', () => {
  it('fails the next append with a typed error saying what was lost, and closes without a lease error', async () => {
    const store = createMemoryStore();
    const engine = createEngine({ store, holder: { pid: 1000, host: 'test' } });
    const session = await engine.createSession({ title: 'doomed' });
    await session.addMessage({ role: 'user', content: 'Evaluate the idea' });
    await session.step('fetch', async () => 'rows');
    await session.checkpoint('fetched');
    // What `rm -rf` of its folder does to the file store: the store no longer has the session.
    await store.delete(session.id);
    await session.addMessage({ role: 'assistant', content: 'One more thought' });
    const error = await session.checkpoint('after').then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(SessionDeletedError.isInstance(error)).toBe(true);
    const deleted = error as SessionDeletedError;
    expect(deleted.sessionId).toBe(session.id);
    expect(deleted.lost).toEqual({ messages: 2, steps: 1, costUsd: 0, location: null });
    expect(deleted.message).toContain(`Session ${session.id} was deleted from the store while it ran`);
    expect(deleted.message).toContain('its 2 messages and 1 step went with it');
    expect(deleted.message).toContain('there is nothing to resume');
    // Every later write says the same; closing does not complain about the lease that went with it.
    expect(SessionDeletedError.isInstance(await session.fail(new Error('x')).catch((caught) => caught))).toBe(true);
    await expect(session.close()).resolves.toBeUndefined();
  });
});
