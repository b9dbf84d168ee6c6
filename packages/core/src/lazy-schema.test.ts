import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazySchema, once } from './lazy-schema.js';
import { journalEventSchema, messageSchema, sessionHeaderSchema } from './spec/events.js';

describe('lazySchema', () => {
  it('builds the schema on first use, once, and validates exactly like it', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return z.object({ name: z.string().min(1), count: z.number().int().default(0) });
    });
    expect(builds).toBe(0);
    expect(schema.parse({ name: 'a' })).toEqual({ name: 'a', count: 0 });
    expect(schema.safeParse({ name: '' }).success).toBe(false);
    expect(schema.safeParse({ name: 'a', count: 1.5 }).success).toBe(false);
    expect(builds).toBe(1);
    expect(Object.keys(schema.shape)).toEqual(['name', 'count']);
    expect(builds).toBe(1);
  });

  it('composes into other schemas and answers instanceof like the built schema', () => {
    const inner = lazySchema(() => z.object({ id: z.string() }));
    const outer = z.object({ items: z.array(inner).min(1), maybe: inner.nullable() });
    expect(outer.parse({ items: [{ id: 'x', extra: 1 }], maybe: null })).toEqual({ items: [{ id: 'x' }], maybe: null });
    expect(outer.safeParse({ items: [{ id: 1 }], maybe: null }).success).toBe(false);
    expect(inner instanceof z.ZodObject).toBe(true);
    expect(Object.getPrototypeOf(inner)).toBe(z.ZodObject.prototype);
  });

  it('keeps the journal schemas as strict as they were', () => {
    expect(journalEventSchema.safeParse({ seq: 1, at: 'now', type: 'title-changed', title: 't' }).success).toBe(true);
    expect(journalEventSchema.safeParse({ seq: 0, at: 'now', type: 'title-changed', title: 't' }).success).toBe(false);
    expect(journalEventSchema.safeParse({ seq: 1, at: 'now', type: 'no-such-event' }).success).toBe(false);
    expect(messageSchema.parse({ role: 'user', content: 'hi' })).toEqual({
      role: 'user',
      content: 'hi',
      speaker: null,
      round: null,
    });
    expect(sessionHeaderSchema.shape.id.safeParse('../etc/passwd').success).toBe(false);
  });
});

describe('once', () => {
  it('runs the builder on the first call only', () => {
    let calls = 0;
    const value = once(() => {
      calls += 1;
      return { calls };
    });
    expect(calls).toBe(0);
    expect(value()).toBe(value());
    expect(calls).toBe(1);
  });
});
