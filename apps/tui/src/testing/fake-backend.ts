// An in-memory TuiBackend for screen tests: summaries and messages given up front,
// deletions recorded.
import type { SessionMode, SessionStatus, SessionSummary } from '@resume/core/spec';
import { searchContentWith } from '../backend/content-search.js';
import type { ContentMessage, PendingQuestion, SessionDetails, TuiBackend } from '../backend/tui-backend.js';

export function summary(overrides: Partial<SessionSummary> & { id: string }): SessionSummary {
  return {
    title: `Session ${overrides.id}`,
    mode: 'discussion' as SessionMode,
    status: 'completed' as SessionStatus,
    workspaceDir: null,
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
    parentId: null,
    branchPoint: null,
    lastSeq: 10,
    messageCount: 4,
    progress: null,
    inputTokens: 1200,
    outputTokens: 800,
    costUsd: 0.05,
    task: null,
    archived: false,
    bytes: null,
    ...overrides,
  };
}

/** A valid session id (22 lowercase base32 characters) that sorts by `index`. */
export function sessionId(index: number): string {
  return `0000000000000000${String(index).padStart(6, '0')}`;
}

export function createFakeBackend(input: {
  sessions: SessionSummary[];
  content?: Record<string, ContentMessage[]>;
  details?: (sessionId: string) => SessionDetails;
  /** Open questions of waiting sessions, by session id. */
  questions?: Record<string, PendingQuestion>;
  /** The problem with a typed answer (null: it fits), as the engine's schema check would say. */
  checkAnswer?: (question: PendingQuestion, text: string) => string | null;
  /** Sessions Enter and `c` cannot run from here, with why (as `whyNotRunnable` words it). */
  notRunnable?: Record<string, string>;
}) {
  let sessions = [...input.sessions];
  const deleted: string[] = [];
  const answers: { sessionId: string; key: string; text: string }[] = [];
  const questions = { ...input.questions };
  const contentLoads: string[] = [];
  const loadContent = async (sessionId: string) => {
    contentLoads.push(sessionId);
    return input.content?.[sessionId] ?? [];
  };
  const backend: TuiBackend = {
    listSessions: async () => sessions,
    loadContent,
    searchContent: (query, ids, signal) => searchContentWith(loadContent, query, ids, signal),
    ...(input.notRunnable
      ? { whyNotRunnable: async (sessionId: string) => input.notRunnable?.[sessionId] ?? null }
      : {}),
    loadDetails: async (sessionId) =>
      input.details?.(sessionId) ?? { sessionId, lineage: [], checkpoints: [], plan: null, lineageCostUsd: null },
    deleteSession: async (sessionId) => {
      deleted.push(sessionId);
      sessions = sessions.filter((session) => session.id !== sessionId);
    },
    changeMetadata: async (sessionId, change) => {
      const found = sessions.find((session) => session.id === sessionId);
      if (!found) throw new Error(`Session ${sessionId} not found.`);
      const removed = new Set(change.removeTags ?? []);
      const tags = [...new Set([...(found.tags ?? []), ...(change.addTags ?? [])])].filter((tag) => !removed.has(tag));
      const changed: SessionSummary = {
        ...found,
        ...(change.name === undefined ? {} : { name: change.name }),
        tags: tags.sort(),
        ...(change.pinned === undefined ? {} : { pinned: change.pinned }),
        ...(change.archived === undefined ? {} : { archivedAt: change.archived ? found.updatedAt : null }),
      };
      sessions = sessions.map((session) => (session.id === sessionId ? changed : session));
      return changed;
    },
    loadQuestion: async (sessionId) => questions[sessionId] ?? null,
    answerQuestion: async (sessionId, key, text) => {
      const question = questions[sessionId];
      if (!question || question.key !== key) throw new Error(`Session ${sessionId} is not waiting for "${key}".`);
      const problem = input.checkAnswer?.(question, text) ?? null;
      if (problem !== null) return { accepted: false, problem };
      answers.push({ sessionId, key, text });
      delete questions[sessionId];
      return { accepted: true };
    },
  };
  return { backend, deleted, contentLoads, answers };
}
