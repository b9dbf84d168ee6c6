import { describe, expect, it } from 'vitest';
import { createEngine } from '../engine/engine.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { sessionHeaderSchema, sessionModeSchema } from './events.js';

describe('session modes in the journal', () => {
  it('accepts any mode name of the registered shape, not only the built-in modes', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const session = await engine.createSession({ title: 'review', mode: 'code-review' });
    await session.complete();
    await session.close();
    expect((await engine.readSession(session.id)).header.mode).toBe('code-review');
    expect((await engine.listSessions({ mode: ['code-review'] })).map((summary) => summary.id)).toEqual([session.id]);
  });

  it('refuses a mode name that is not lower-case words joined by hyphens', () => {
    for (const bad of ['', 'Code Review', 'review!', '-review', 'review-', 'a--b', 'x'.repeat(65)]) {
      expect(sessionModeSchema.safeParse(bad).success, bad).toBe(false);
    }
    const header = sessionHeaderSchema.safeParse({ mode: '../etc' });
    expect(header.error?.issues.some((issue) => issue.path[0] === 'mode')).toBe(true);
  });
});
