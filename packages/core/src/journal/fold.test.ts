import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../engine/engine.js';
import { JournalCorruptedError, type JournalEvent } from '../spec/index.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { Folder, fold, stateAt, summarize } from './fold.js';

type Operation =
  | { kind: 'message'; role: 'user' | 'assistant'; content: string }
  | { kind: 'step'; key: string; fails: number }
  | { kind: 'checkpoint'; label: string | null }
  | { kind: 'data'; key: string; value: number }
  | { kind: 'usage'; input: number; output: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({
    kind: fc.constant('message' as const),
    role: fc.constantFrom('user' as const, 'assistant' as const),
    content: fc.string(),
  }),
  fc.record({
    kind: fc.constant('step' as const),
    key: fc.constantFrom('a', 'b', 'c'),
    fails: fc.integer({ min: 0, max: 2 }),
  }),
  fc.record({ kind: fc.constant('checkpoint' as const), label: fc.option(fc.string({ maxLength: 8 })) }),
  fc.record({ kind: fc.constant('data' as const), key: fc.constantFrom('progress', 'notes'), value: fc.integer() }),
  fc.record({ kind: fc.constant('usage' as const), input: fc.nat(5000), output: fc.nat(5000) }),
);

/** Plays operations through a real engine and returns the journal it wrote. */
async function journalOf(operations: Operation[]): Promise<JournalEvent[]> {
  const store = createMemoryStore();
  const engine = createEngine({ store, now: () => new Date('2026-01-01T00:00:00Z') });
  const session = await engine.createSession({ title: 'property', mode: 'custom' });
  for (const op of operations) {
    if (op.kind === 'message') session.addMessage({ role: op.role, content: op.content });
    if (op.kind === 'checkpoint') await session.checkpoint(op.label ?? undefined);
    if (op.kind === 'data') session.record({ type: 'data-set', key: op.key, value: op.value });
    if (op.kind === 'usage') {
      session.record({
        type: 'usage-recorded',
        provider: 'p',
        model: 'm',
        inputTokens: op.input,
        outputTokens: op.output,
        costUsd: 0,
      });
    }
    if (op.kind === 'step') {
      await session
        .step(
          op.key,
          async ({ attempt }) => {
            if (attempt <= op.fails) throw new Error(`fail ${attempt}`);
            return attempt;
          },
          { retry: { attempts: 2 }, sleep: async () => {} },
        )
        .catch(() => undefined);
    }
  }
  await session.close();
  const events: JournalEvent[] = [];
  for await (const event of store.read(session.id)) events.push(event);
  return events;
}

describe('fold', () => {
  it('counts graph checkpoints as progress, shown in the summary and ending a crash streak', async () => {
    const engine = createEngine({ store: createMemoryStore(), now: () => new Date('2026-01-01T00:00:00Z') });
    const session = await engine.createSession({ title: 'thread', mode: 'langgraph', replay: 'keyed' });
    for (const checkpointId of ['c1', 'c2']) {
      session.record({
        type: 'graph-checkpoint-saved',
        namespace: '',
        checkpointId,
        parentCheckpointId: checkpointId === 'c1' ? null : 'c1',
        data: { format: 1 },
      });
    }
    session.record({ type: 'graph-writes-saved', namespace: '', checkpointId: 'c2', taskId: 't', data: { format: 1 } });
    await session.flush();
    const state = session.state;
    expect(summarize(state).progress).toEqual({ label: 'checkpoints', done: 2, total: null });
    expect(state.progressSeq).toBe(state.lastSeq);
    expect(summarize(state).mode).toBe('langgraph');
    await session.close();
  });

  it('folds incrementally, from any snapshot and at any seq to the same state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 30 }), fc.nat(), async (operations, cut) => {
        const events = await journalOf(operations);
        const whole = fold(events);
        expect(whole.lastSeq).toBe(events.length);
        const at = 1 + (cut % events.length);
        const prefix = stateAt(events, at);
        expect(prefix).toEqual(fold(events.slice(0, at)));
        // Resuming the fold from a snapshot of the prefix gives the same state as folding everything.
        const resumed = new Folder(structuredClone(prefix));
        for (const event of events.slice(at)) resumed.apply(event);
        expect(resumed.state).toEqual(whole);
        expect(whole.messages.length).toBe(events.filter((event) => event.type === 'message-added').length);
        expect(summarize(whole).lastSeq).toBe(events.length);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses out-of-order, duplicated or missing events instead of skipping them', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 3, maxLength: 20 }), fc.nat(), async (operations, pick) => {
        const events = await journalOf(operations);
        fc.pre(events.length >= 3);
        const index = 1 + (pick % (events.length - 1));
        const dropped = events.filter((_, position) => position !== index);
        const duplicated = [...events.slice(0, index + 1), ...events.slice(index)];
        const swapped = [...events];
        [swapped[index - 1], swapped[index]] = [swapped[index] as JournalEvent, swapped[index - 1] as JournalEvent];
        for (const broken of [duplicated, swapped, ...(index < events.length - 1 ? [dropped] : [])]) {
          expect(() => fold(broken)).toThrow(JournalCorruptedError);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('refuses a step outcome that has no start', () => {
    const events = [
      {
        type: 'session-created' as const,
        seq: 1,
        at: '2026-01-01T00:00:00Z',
        header: {
          id: '0000000000000000000000',
          title: 't',
          mode: 'custom' as const,
          workspaceDir: null,
          createdAt: '2026-01-01T00:00:00Z',
          parentId: null,
          branchPoint: null,
          specHash: null,
          formatVersion: 1,
          options: {},
          git: null,
        },
      },
      {
        type: 'step-completed' as const,
        seq: 2,
        at: '2026-01-01T00:00:00Z',
        key: 'x',
        occurrence: 1,
        attempt: 1,
        output: 1,
      },
    ];
    expect(() => fold(events)).toThrow(/without a matching start/);
  });
});
