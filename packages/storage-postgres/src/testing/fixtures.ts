// Test support: sessions, events and summaries as the engine would hand them to a store.
import {
  createSessionId,
  JOURNAL_FORMAT_VERSION,
  type JournalEvent,
  type SessionHeader,
  type SessionSummary,
} from '@resume/core/spec';

let counter = 0;

export function makeHeader(overrides: Partial<SessionHeader> = {}): SessionHeader {
  counter += 1;
  return {
    id: createSessionId(Date.UTC(2025, 0, 1) + counter),
    title: `session ${counter}`,
    mode: 'custom',
    workspaceDir: '/work/space',
    createdAt: '2025-01-01T00:00:00.000Z',
    parentId: null,
    branchPoint: null,
    specHash: null,
    formatVersion: JOURNAL_FORMAT_VERSION,
    options: {},
    git: null,
    ...overrides,
  };
}

export function messageEvent(seq: number, content = `message ${seq}`): JournalEvent {
  return {
    seq,
    at: '2025-01-01T00:00:01.000Z',
    type: 'message-added',
    message: { role: 'user', content, speaker: null, round: null },
  };
}

export function messageEvents(fromSeq: number, count: number): JournalEvent[] {
  return Array.from({ length: count }, (_, index) => messageEvent(fromSeq + index));
}

export function makeSummary(
  header: SessionHeader,
  lastSeq: number,
  overrides: Partial<SessionSummary> = {},
): SessionSummary {
  return {
    id: header.id,
    title: header.title,
    mode: header.mode,
    status: 'running',
    workspaceDir: header.workspaceDir,
    createdAt: header.createdAt,
    updatedAt: header.createdAt,
    parentId: header.parentId,
    branchPoint: header.branchPoint,
    lastSeq,
    messageCount: lastSeq,
    progress: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
    task: null,
    archived: false,
    bytes: null,
    ...overrides,
  };
}
