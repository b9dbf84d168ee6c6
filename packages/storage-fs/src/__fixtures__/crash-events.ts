// Deterministic events for the crash test: the content of an event follows from its
// seq, so the parent can check every byte of what survived.
import type { JournalEvent, SessionSummary } from '@resume/core/spec';

export function crashEvent(seq: number): JournalEvent {
  return {
    seq,
    at: '2025-01-01T00:00:00.000Z',
    type: 'message-added',
    message: { role: 'assistant', content: `event ${seq} `.repeat(20), speaker: 'writer', round: null },
  };
}

export function crashSummary(id: string, lastSeq: number): SessionSummary {
  return {
    id,
    title: 'crash test',
    mode: 'custom',
    status: 'running',
    workspaceDir: null,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    parentId: null,
    branchPoint: null,
    lastSeq,
    messageCount: lastSeq,
    progress: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
    task: null,
    archived: false,
    bytes: null,
  };
}
