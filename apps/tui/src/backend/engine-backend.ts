// The TuiBackend over `@resume/core`'s Engine: summaries from the store's index,
// content and details folded lazily, one session at a time, and cached.
import type { Engine } from '@resume/core';
import { answerFromText, answerProblem, expectedAnswer, pendingInput } from '@resume/core/engine';
import type { SessionStore, SessionSummary } from '@resume/core/spec';
import { buildResumePlan, libraryRefusal, lineageUsage, queuedItemsOf } from '@resume/runner';
import type { ContentIndex, WordKey } from '@resume/runner/search';
import { hintFor } from '../errors/error-hints.js';
import { resumePlanView } from '../plan/resume-prompt-plan.js';
import { searchContentWith } from './content-search.js';
import type {
  ContentMatch,
  ContentMessage,
  LineageEntry,
  ResumePlanView,
  SessionDetails,
  TuiBackend,
} from './tui-backend.js';

/** The part of `Engine` the screens need. */
export type EngineForTui = Pick<
  Engine,
  'listSessions' | 'readSession' | 'deleteSession' | 'respond' | 'changeMetadata'
> &
  /** With the store, the details of a queued run list its map items and the workers running them. */
  Partial<Pick<Engine, 'store'>>;

export interface EngineBackendOptions {
  engine: EngineForTui;
  /**
   * Builds the resume plan for the details pane. The default plans from the journal alone
   * (done, uncertain, retrying steps); the CLI passes one that also compares files and knows
   * each mode's "next".
   */
  planResume?: (sessionId: string) => Promise<ResumePlanView | null>;
  /** How many folded sessions to keep in memory for search (default 200). */
  contentCacheSize?: number;
  /** Who answers questions typed in the answer box (journaled with the answer), e.g. `user@host`. */
  answeredBy?: string;
  /**
   * The content index the search uses (`@resume/runner/search`), opened at the first search.
   * Without it, or when it cannot be opened, the search reads the sessions one by one.
   */
  contentIndex?: {
    file: string;
    store: Pick<SessionStore, 'list' | 'read'>;
    /**
     * False for a home encrypted at rest: the index keeps the usage table only (no words), and
     * the search reads the sessions one by one. Default true.
     */
    indexTexts?: boolean;
    /** A home encrypted at rest: its current data key, the index's words are hashed under. */
    wordKey?: WordKey;
    /** The store's stamp (the file store's `sessionsStamp`): while it holds, a search lists nothing and reads no journal. */
    storeStamp?: (previous: string | null) => string | null | Promise<string | null>;
  };
}

/** The days the usage screen draws a bar for, today included. */
const USAGE_DAYS = 14;

export function createEngineBackend(options: EngineBackendOptions): TuiBackend {
  const { engine, planResume } = options;
  const cacheSize = options.contentCacheSize ?? 200;
  const contentCache = new Map<string, ContentMessage[]>();
  let summaries: SessionSummary[] = [];
  let index: Promise<ContentIndex | null> | null = null;

  function openIndex(): Promise<ContentIndex | null> {
    const where = options.contentIndex;
    if (!where) return Promise.resolve(null);
    index ??= import('@resume/runner/search')
      .then(({ openContentIndex }) =>
        // It follows the store's listing, the trash included: the usage screen counts what the trash spent.
        openContentIndex({
          file: where.file,
          store: where.store,
          indexTexts: where.indexTexts ?? true,
          ...(where.wordKey ? { wordKey: where.wordKey } : {}),
          ...(where.storeStamp ? { storeStamp: where.storeStamp } : {}),
        }),
      )
      .catch(() => null);
    return index;
  }

  async function* searchThroughIndex(
    query: string,
    sessionIds: readonly string[],
    signal: AbortSignal,
  ): AsyncIterable<ContentMatch> {
    const opened = options.contentIndex?.indexTexts === false ? null : await openIndex();
    if (!opened) {
      yield* searchContentWith(loadContent, query, sessionIds, signal);
      return;
    }
    for await (const hit of opened.sessionHits(query, { sessionIds })) {
      if (signal.aborted) return;
      const { sessionId, snippet, matchStart, matchEnd, speaker } = hit;
      yield { sessionId, snippet, matchStart, matchEnd, speaker };
    }
  }

  async function loadContent(sessionId: string): Promise<ContentMessage[]> {
    const cached = contentCache.get(sessionId);
    if (cached) return cached;
    const state = await engine.readSession(sessionId);
    const messages = state.messages.map((message) => ({
      role: message.role,
      speaker: message.speaker,
      round: message.round,
      content: message.content,
    }));
    if (contentCache.size >= cacheSize) {
      const oldest = contentCache.keys().next().value;
      if (oldest !== undefined) contentCache.delete(oldest);
    }
    contentCache.set(sessionId, messages);
    return messages;
  }

  return {
    async listSessions() {
      summaries = await engine.listSessions();
      return summaries;
    },
    loadContent,
    searchContent(query, sessionIds, signal) {
      return searchThroughIndex(query, sessionIds, signal);
    },
    async loadDetails(sessionId) {
      const state = await engine.readSession(sessionId);
      let plan: ResumePlanView | null = null;
      // A completed session is continued with a follow-up, not resumed: it has no resume plan.
      if (state.status === 'completed') plan = null;
      else if (planResume) plan = await planResume(sessionId).catch(() => null);
      else plan = resumePlanView(buildResumePlan(state));
      const lineage = buildLineage(summaries, sessionId);
      const details: SessionDetails = {
        sessionId,
        lineage,
        checkpoints: state.checkpoints.map(({ seq, label, at }) => ({ seq, label, at })),
        ...(state.graphCheckpoints ? { graphCheckpoints: state.graphCheckpoints } : {}),
        plan,
        // From the journals: a deleted ancestor still counts, as its child recorded it.
        lineageCostUsd: (await lineageUsage(engine, sessionId).catch(() => null))?.total.costUsd ?? null,
        queuedItems: engine.store ? await queuedItemsOf({ store: engine.store }, state).catch(() => []) : [],
      };
      return details;
    },
    changeMetadata(sessionId, change) {
      return engine.changeMetadata(sessionId, change);
    },
    async whyNotRunnable(sessionId) {
      // The header says it: with the store at hand, the journal is not read (a long thread's takes a while).
      const header = engine.store
        ? await engine.store.getHeader(sessionId)
        : (await engine.readSession(sessionId)).header;
      if (!header) return null;
      const refusal = libraryRefusal({ header });
      return refusal ? (hintFor(refusal)?.split('\n')[0] ?? refusal.message) : null;
    },
    ...(options.contentIndex
      ? {
          async loadUsage() {
            const [opened, ledger] = await Promise.all([openIndex(), import('@resume/runner/ledger')]);
            if (!opened)
              throw new Error('The usage ledger needs node:sqlite (Node 22.13 or newer): see conclave usage.');
            const usage = await opened.usage();
            const report = ledger.buildUsageReport(usage, { by: ['day'] });
            const byDay = new Map(report.rows.map((row) => [row.day, row]));
            const today = new Date();
            const days = Array.from({ length: USAGE_DAYS }, (_, back) => {
              const date = new Date(today.getFullYear(), today.getMonth(), today.getDate() - (USAGE_DAYS - 1 - back));
              const day = ledger.localDay(date);
              const row = byDay.get(day);
              return {
                day,
                calls: row?.calls ?? 0,
                inputTokens: row?.inputTokens ?? 0,
                outputTokens: row?.outputTokens ?? 0,
                costUsd: row?.costUsd ?? 0,
              };
            });
            return {
              total: report.total,
              days,
              deletedParents: report.orphans.parents,
              uncounted: ledger.lockedSessionsNote(report.locked),
            };
          },
        }
      : {}),
    async deleteSession(sessionId) {
      // Into the trash, as `conclave sessions delete` does: `sessions restore` brings it back.
      await engine.changeMetadata(sessionId, { trashed: true });
      contentCache.delete(sessionId);
      summaries = summaries.filter((summary) => summary.id !== sessionId);
    },
    async loadQuestion(sessionId) {
      const question = pendingInput(await engine.readSession(sessionId));
      if (!question) return null;
      return { sessionId, key: question.key, prompt: question.prompt, ...expectedAnswer(question.schema) };
    },
    async answerQuestion(sessionId, key, text) {
      // The question is read again: another process (or machine) may have answered it meanwhile.
      const question = pendingInput(await engine.readSession(sessionId));
      const value = answerFromText(question?.key === key ? question.schema : null, text);
      if (question?.key === key) {
        const problem = answerProblem(question.schema, value);
        if (problem !== null) return { accepted: false, problem: oneLine(problem) };
      }
      // The engine checks again and journals the answer (or refuses it, naming why).
      await engine.respond(sessionId, key, value, {
        ...(question?.key === key ? { occurrence: question.occurrence } : {}),
        ...(options.answeredBy === undefined ? {} : { answeredBy: options.answeredBy }),
      });
      contentCache.delete(sessionId);
      return { accepted: true };
    },
  };
}

/** zod's multi-line problem report ("✖ Invalid input…\n  → at approved") on one line. */
function oneLine(problem: string): string {
  return problem
    .split('\n')
    .map((line) => line.replace(/^\s*✖\s*/, '').trim())
    .filter((line) => line !== '')
    .join(' ');
}

/**
 * The lineage tree of `sessionId`: its ancestors from the root down, then every
 * descendant of the root (siblings included), depth-first, oldest first.
 */
export function buildLineage(summaries: readonly SessionSummary[], sessionId: string): LineageEntry[] {
  const byId = new Map(summaries.map((summary) => [summary.id, summary]));
  const children = new Map<string, SessionSummary[]>();
  for (const summary of summaries) {
    if (summary.parentId === null) continue;
    const list = children.get(summary.parentId) ?? [];
    list.push(summary);
    children.set(summary.parentId, list);
  }
  let root = byId.get(sessionId);
  if (!root) return [];
  const seen = new Set<string>([root.id]);
  // Walk up; a parent deleted from the store ends the chain (and `seen` guards against cycles).
  while (root.parentId !== null) {
    const parent = byId.get(root.parentId);
    if (!parent || seen.has(parent.id)) break;
    seen.add(parent.id);
    root = parent;
  }
  const entries: LineageEntry[] = [];
  const visit = (summary: SessionSummary, depth: number, visited: Set<string>) => {
    if (visited.has(summary.id)) return;
    visited.add(summary.id);
    entries.push({
      id: summary.id,
      title: summary.title,
      status: summary.status,
      depth,
      current: summary.id === sessionId,
      branchPoint: summary.branchPoint,
    });
    const kids = [...(children.get(summary.id) ?? [])].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    for (const child of kids) visit(child, depth + 1, visited);
  };
  visit(root, 0, new Set());
  return entries;
}

/** Cost of the session and its ancestors (what the chain that led here cost); null if any is unknown. */
export function lineageCost(summaries: readonly SessionSummary[], sessionId: string): number | null {
  const byId = new Map(summaries.map((summary) => [summary.id, summary]));
  const seen = new Set<string>();
  let total = 0;
  let current = byId.get(sessionId);
  while (current && !seen.has(current.id)) {
    seen.add(current.id);
    if (current.costUsd === null) return null;
    total += current.costUsd;
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return seen.size === 0 ? null : total;
}
