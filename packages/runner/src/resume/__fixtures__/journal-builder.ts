// Builds journals by hand for the resume tests: events are numbered and stamped with a
// fixed clock, validated with the journal schema, and folded with the real fold.

import type { SessionState } from '@resume/core';
import { fold } from '@resume/core';
import {
  createSessionId,
  type EventInput,
  type JournalEvent,
  journalEventSchema,
  type SessionHeader,
} from '@resume/core/spec';
import { testHeader } from '@resume/core/testing';

export interface JournalBuilder {
  readonly id: string;
  readonly events: JournalEvent[];
  add(event: EventInput): JournalBuilder;
  message(role: 'user' | 'assistant' | 'system', content: string, extra?: Record<string, unknown>): JournalBuilder;
  completedStep(key: string, output?: unknown, safety?: 'idempotent' | 'unsafe'): JournalBuilder;
  checkpoint(label: string | null): JournalBuilder;
  usage(
    model: string,
    agent: string | null,
    inputTokens: number,
    outputTokens: number,
    costUsd: number | null,
  ): JournalBuilder;
  state(): SessionState;
}

export function journal(header: Partial<SessionHeader> = {}): JournalBuilder {
  const id = header.id ?? createSessionId(Date.UTC(2026, 0, 1), new Uint8Array(10).fill(7));
  const events: JournalEvent[] = [];
  const occurrences = new Map<string, number>();
  const at = (seq: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString();
  const builder: JournalBuilder = {
    id,
    events,
    add(event) {
      const seq = events.length + 1;
      events.push(journalEventSchema.parse({ ...event, seq, at: at(seq) }));
      return builder;
    },
    message(role, content, extra = {}) {
      return builder.add({ type: 'message-added', message: { role, content, ...extra } });
    },
    completedStep(key, output = null, safety = 'idempotent') {
      const occurrence = (occurrences.get(key) ?? 0) + 1;
      occurrences.set(key, occurrence);
      const idempotencyKey = `${id}:${key}:${occurrence}`;
      builder.add({ type: 'step-started', key, occurrence, attempt: 1, safety, idempotencyKey });
      return builder.add({ type: 'step-completed', key, occurrence, attempt: 1, output: output as never });
    },
    checkpoint(label) {
      return builder.add({ type: 'checkpoint-marked', label });
    },
    usage(model, agent, inputTokens, outputTokens, costUsd) {
      return builder.add({
        type: 'usage-recorded',
        provider: 'scripted',
        model,
        agent,
        inputTokens,
        outputTokens,
        costUsd,
      });
    },
    state() {
      return fold(events);
    },
  };
  builder.add({
    type: 'session-created',
    header: testHeader({
      id,
      title: 'Evaluate my idea',
      mode: 'discussion',
      workspaceDir: null,
      createdAt: at(1),
      ...header,
    }),
  });
  return builder;
}
