// Builders for the records the engine hands a store (session headers, summaries,
// `message-added` events), so store tests, crash-test children and benchmarks build
// them one way. Times are fixed and ids deterministic, so nothing depends on the clock.
// Plain data only (no test runner), so child processes can bundle it.
import {
  createSessionId,
  JOURNAL_FORMAT_VERSION,
  type JournalEvent,
  type Message,
  type SessionHeader,
  type SessionId,
  type SessionSummary,
} from '../spec/index.js';

/** The time every built record carries unless told otherwise. */
export const TEST_TIME = '2025-01-01T00:00:00.000Z';

let idCounter = 0;

/** A valid session id, distinct from and greater than every id this process built before. */
export function testSessionId(): SessionId {
  idCounter += 1;
  return createSessionId(Date.parse(TEST_TIME) + idCounter);
}

/** A session header as the engine writes it at creation; a fresh id unless `overrides.id` is given. */
export function testHeader(overrides: Partial<SessionHeader> = {}): SessionHeader {
  const id = overrides.id ?? testSessionId();
  return {
    id,
    title: `session ${id}`,
    mode: 'custom',
    workspaceDir: '/work/space',
    createdAt: TEST_TIME,
    parentId: null,
    branchPoint: null,
    specHash: null,
    formatVersion: JOURNAL_FORMAT_VERSION,
    options: {},
    git: null,
    ...overrides,
  };
}

/**
 * The summary of a running session whose journal ends at `lastSeq` with one message per
 * event. Given an id instead of a header, it describes `testHeader({ id })`.
 */
export function testSummary(
  session: SessionHeader | string,
  lastSeq = 0,
  overrides: Partial<SessionSummary> = {},
): SessionSummary {
  const header = typeof session === 'string' ? testHeader({ id: session }) : session;
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

/** A `message-added` event: a user message unless `message` says otherwise. */
export function messageEvent(
  seq: number,
  content = `message ${seq}`,
  message: Partial<Omit<Message, 'content'>> = {},
): JournalEvent {
  return {
    seq,
    at: TEST_TIME,
    type: 'message-added',
    message: { role: 'user', content, speaker: null, round: null, ...message },
  };
}

/** `count` default message events with consecutive seqs from `fromSeq`. */
export function messageEvents(fromSeq: number, count: number): JournalEvent[] {
  return Array.from({ length: count }, (_, index) => messageEvent(fromSeq + index));
}

/** A `file-snapshot-taken` event naming `blob` (as the workspace tools record a file they read or wrote). */
export function fileSnapshotEvent(seq: number, blob: string, size: number): JournalEvent {
  return { seq, at: TEST_TIME, type: 'file-snapshot-taken', path: 'notes.md', hash: blob, size, blob, access: 'write' };
}
