// The small API the screens talk to. Components and hooks never touch a store or an
// engine: the CLI (or the `conclave-tui` bin) hands them a TuiBackend, usually the
// one `createEngineBackend` builds over `@resume/core`'s Engine.
import type { MetadataChange } from '@resume/core';
import type { SessionSummary } from '@resume/core/spec';
import type { QueuedMapStatus } from '@resume/runner';

/** One message of a session, as the picker searches and shows it. */
export interface ContentMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  speaker: string | null;
  round: number | null;
  content: string;
}

/** A content-search hit: the session and a short snippet around the first match. */
export interface ContentMatch {
  sessionId: string;
  /** Text around the match, on one line. */
  snippet: string;
  /** Where the match starts and ends inside `snippet`, to highlight it. */
  matchStart: number;
  matchEnd: number;
  speaker: string | null;
}

export interface LineageEntry {
  id: string;
  title: string;
  status: SessionSummary['status'];
  /** 0 for the root of the lineage; children are one deeper than their parent. */
  depth: number;
  /** The session the details pane is about. */
  current: boolean;
  branchPoint: number | null;
}

export interface CheckpointEntry {
  seq: number;
  label: string | null;
  at: string;
}

/** What a resume would do, already put into words by the resume planner. */
export interface ResumePlanView {
  /** Where it starts again, e.g. "chunk 8 of 15", "round 3", "step analyze (attempt 3 of 5)". */
  position: string | null;
  /** Done work that will be skipped (not repeated). */
  skipped: string[];
  /** Steps that started but never finished and have side effects. */
  uncertain: string[];
  /** What runs next. */
  next: string[];
  /** Files changed since the session touched them, compatibility warnings, and the like. */
  warnings: string[];
}

export interface SessionDetails {
  sessionId: string;
  lineage: LineageEntry[];
  checkpoints: CheckpointEntry[];
  /** A LangGraph thread's checkpoints (its graph's, listed by the app; `checkpoints` are the session's own). */
  graphCheckpoints?: number;
  /** Null when the session cannot be resumed in place (e.g. completed) or no planner is configured. */
  plan: ResumePlanView | null;
  /** Lineage cost, when known for every session in it. */
  lineageCostUsd: number | null;
  /** A queued run's map items by state (docs/workers.md#queued-map-items); empty for any other session. */
  queuedItems?: QueuedMapStatus[];
}

/** The question a waiting session asks, as the answer box shows it. */
export interface PendingQuestion {
  sessionId: string;
  /** The name it waits under (`waitFor(key)`, `ask_user#1`). */
  key: string;
  prompt: string;
  /** What the answer must be ("yes or no", "a whole number"); null: any text. */
  hint: string | null;
  /** The answers that fit a closed question; null: free text. */
  choices: string[] | null;
}

/** An answer was journaled, or it did not fit the question and nothing was written. */
export type AnswerOutcome = { accepted: true } | { accepted: false; problem: string };

export interface TuiBackend {
  /** Every session, newest first (summaries only: no journal is opened). */
  listSessions(): Promise<SessionSummary[]>;
  /** The messages of one session, loaded only when a search needs them. */
  loadContent(sessionId: string): Promise<ContentMessage[]>;
  /** Searches message content of the given sessions; yields hits as they are found. */
  searchContent(query: string, sessionIds: readonly string[], signal: AbortSignal): AsyncIterable<ContentMatch>;
  /** Lineage, checkpoints and resume plan for the details pane. */
  loadDetails(sessionId: string): Promise<SessionDetails>;
  /** Moves the session to the trash (restorable with `conclave sessions restore`). */
  deleteSession(sessionId: string): Promise<void>;
  /** The open question of a waiting session (null: it waits for nothing). */
  loadQuestion(sessionId: string): Promise<PendingQuestion | null>;
  /**
   * Journals a typed answer to `key` (read as the question's schema expects, checked against it
   * first: an answer that does not fit is `{ accepted: false }` and nothing is written). Throws
   * when the store refuses (answered meanwhile, session in use).
   */
  answerQuestion(sessionId: string, key: string, text: string): Promise<AnswerOutcome>;
  /**
   * Renames, tags, pins or archives a session (journaled) and returns its summary. Throws what
   * the engine refuses, in words for the notice line (a name taken, a session in use).
   */
  changeMetadata(sessionId: string, change: MetadataChange): Promise<SessionSummary>;
  /**
   * Why Enter and `c` cannot run this session from here, worded for the notice line (a LangGraph
   * thread or another session a program wrote goes on in that program); null when they can.
   * Absent: every session is handed to the caller.
   */
  whyNotRunnable?(sessionId: string): Promise<string | null>;
  /** Tokens and cost of every session's model calls (`conclave usage`); absent: the picker has no usage screen. */
  loadUsage?(): Promise<UsageView>;
}

export interface UsageFigures {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** The known cost in USD (calls of an unpriced model count 0). */
  costUsd: number;
}

/** The usage screen: every session's calls in all, and day by day over the last days. */
export interface UsageView {
  total: UsageFigures;
  /** The last days, oldest first (`2026-11-26`, local time), days without calls included. */
  days: Array<UsageFigures & { day: string }>;
  /** Sessions deleted for good whose calls are still counted from their branches' copies. */
  deletedParents: number;
  /** Why some sessions' calls are not counted (encrypted with a key not on this machine), or null. */
  uncounted: string | null;
}
