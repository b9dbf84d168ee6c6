// The content index: an SQLite FTS5 table (node:sqlite, no native build) of every session's
// title, name, tags, task and user and assistant messages, and a table of its model calls
// (the usage ledger), kept beside the listing index
// (docs/decisions/0035-content-index.md). It is derived from the journals and never a
// second source of truth: each query first reads what was appended since the index last
// looked (sessions whose `lastSeq` moved), drops what was deleted, and the file is rebuilt
// from the journals when it is missing or unreadable. The table is contentless: it keeps
// the words' postings, never the messages; a hit's snippet is cut from the journal's event.
import { chmod, mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from 'node:zlib';
import { type SessionStore, type SessionSummary, UsageError } from '@resume/core/spec';
import { findTermMatch, matchExpression, parseQuery, type SearchTerm, type TextMatch } from './search-text.js';

/** The index's layout; a file of another version is built again. */
const INDEX_VERSION = 3;
/** A row id is the session's number in the index times this, plus the event's seq (0: its summary). */
const SESSION_SPAN = 2 ** 32;

export type ContentField = 'name' | 'title' | 'tags' | 'task' | 'message';

export interface ContentHit extends TextMatch {
  sessionId: string;
  /** What matched: the session's name, title or tags, its task (its first user message), or another message. */
  field: ContentField;
  /** The message's event in the journal (null for the other fields). */
  seq: number | null;
  round: number | null;
  role: 'user' | 'assistant' | null;
  speaker: string | null;
}

export interface ContentIndexUpdate {
  /** Sessions whose new events (or new title, name or tags) were read. */
  indexed: number;
  /** Sessions no longer listed, dropped from the index. */
  dropped: number;
  /** Sessions whose journal could not be read this time (damaged, unreadable); tried again next time. */
  skipped: number;
}

export interface OpenContentIndexOptions {
  /** The index file (`<home>/index/content.sqlite` for the file store); created 0600 with its folder 0700. */
  file: string;
  store: Pick<SessionStore, 'list' | 'read'>;
  /**
   * The sessions to follow (default: the store's, the trash included; searches leave the trash out). A caller that has just
   * listed them passes its list, so a query does not list the store again.
   */
  listSessions?: () => Promise<SessionSummary[]>;
  /**
   * Whether words are indexed (default true). False keeps only the usage table, for a home
   * encrypted at rest: the index would otherwise keep the sessions' words unencrypted.
   */
  indexTexts?: boolean;
  /** Called before the journals of more than a few sessions are read (a first search, a rebuild). */
  onIndexing?: (sessions: number) => void;
  /**
   * A fingerprint of the store's sessions that changes whenever one is created, written or
   * deleted (the file store's `sessionsStamp`; `previous` is the one the index last saw, which
   * it may check instead of looking at everything), or null when it cannot vouch for them now. While
   * it is the one the index last saw, a query neither lists the store nor reads a journal: the
   * sessions' summaries come from the index.
   */
  storeStamp?: (previous: string | null) => string | null | Promise<string | null>;
}

/** Model calls of one session in one hour (UTC) on one provider and model, summed. */
export interface UsageEntry {
  sessionId: string;
  /** The hour's start, `2026-11-26T15` (UTC). */
  hour: string;
  provider: string;
  model: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** The known cost (calls of an unknown price count 0; see `unpricedCalls`). */
  costUsd: number;
  unpricedCalls: number;
}

export interface UsageLedger {
  /** Every session the index follows (the trash included), by id. */
  sessions: Map<string, SessionSummary>;
  entries: UsageEntry[];
  /**
   * Branches whose parent was deleted for good: the parent's calls up to each branch point are
   * counted once from the branches' copies; what it spent after them is no longer known.
   */
  orphans: { branches: number; parents: number };
}

export interface SearchOptions {
  /** At most this many hits, best first (default 50). */
  limit?: number;
}

export interface ContentIndex {
  readonly file: string;
  /** Reads what changed since the index last looked; every query does this first. */
  update(): Promise<ContentIndexUpdate>;
  /** The ids of the sessions as of the last update, newest first (the trash left out), as `sessions list` numbers them. */
  sessionIds(): string[];
  /** The numbers (from 1) of these sessions in `sessionIds()`, without listing them all (a session not there is left out). */
  positions(sessionIds: readonly string[]): Map<string, number>;
  /** A session's summary as of the last update (as the store listed it). */
  summary(sessionId: string): SessionSummary | undefined;
  /** Hits best first: each matching message, and each session whose name, title, tags or task match. */
  search(query: string, options?: SearchOptions): Promise<ContentHit[]>;
  /** The ids of the sessions with any hit (no journal is read). */
  matchingSessions(query: string): Promise<Set<string>>;
  /**
   * One hit per matching session, its first: its name, title, tags or task, else its first
   * matching message. Sessions come in the order of `sessionIds` (only those), else as indexed.
   */
  sessionHits(query: string, options?: { sessionIds?: readonly string[] }): AsyncIterable<ContentHit>;
  /**
   * The model calls journaled in every session (`usage-recorded` events), each counted once: a
   * branch's copy of its parent's calls is left out while the parent exists.
   */
  usage(): Promise<UsageLedger>;
  close(): void;
}

interface IndexedSession {
  number: number;
  indexedSeq: number;
  summaryKey: string;
  /** The summary as last listed (JSON), what a query shows while the store's stamp holds. */
  summary: string;
  /** The seq of the session's first user message (its task), once read. */
  taskSeq: number | null;
}

// The task is the session's first user message: indexed as that message, reported as the task.
const summaryFields = ['name', 'title', 'tags'] as const;

function summaryTexts(summary: SessionSummary): Record<(typeof summaryFields)[number], string> {
  return { name: summary.name ?? '', title: summary.title, tags: (summary.tags ?? []).join(' ') };
}

function summaryKey(summary: SessionSummary): string {
  return JSON.stringify(Object.values(summaryTexts(summary)));
}

/** A session the index follows: its summary is parsed when a query first needs it (a hit's, the usage's). */
interface ListedSession {
  trashed: boolean;
  summary(): SessionSummary;
}

function listedAs(summary: SessionSummary): ListedSession {
  return { trashed: summary.trashedAt != null, summary: () => summary };
}

/** A message as the index keeps it to show a hit: compressed (a few hundred bytes each). */
function packText(text: string): Uint8Array {
  return brotliCompressSync(text, {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: 5,
      [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
    },
  });
}

function unpackText(packed: Uint8Array): string {
  return brotliDecompressSync(packed).toString('utf8');
}

async function loadSqlite(): Promise<typeof import('node:sqlite')> {
  try {
    return await import('node:sqlite');
  } catch {
    throw new UsageError(`Content search needs node:sqlite, which Node ${process.version} does not have.`, {
      hint: 'Run Conclave with Node 22.13 or newer (24 recommended).',
    });
  }
}

/** Creates the file private before SQLite opens it (SQLite gives its side files the same mode). */
async function preparePrivateFile(file: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const handle = await open(file, 'a', 0o600);
  await handle.close();
  await chmod(file, 0o600);
}

function openDatabase(sqlite: typeof import('node:sqlite'), file: string): DatabaseSync {
  const database = new sqlite.DatabaseSync(file);
  try {
    database.exec('PRAGMA busy_timeout = 10000');
    const { user_version: version } = database.prepare('PRAGMA user_version').get() as { user_version: number };
    if (version !== INDEX_VERSION) {
      database.exec(`
        DROP TABLE IF EXISTS texts;
        DROP TABLE IF EXISTS usage;
        DROP TABLE IF EXISTS sessions;
        DROP TABLE IF EXISTS shown;
        DROP TABLE IF EXISTS summaries;
        DROP TABLE IF EXISTS meta;
        CREATE TABLE sessions (
          number INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL UNIQUE,
          indexed_seq INTEGER NOT NULL,
          summary_key TEXT NOT NULL,
          task_seq INTEGER,
          updated_at TEXT NOT NULL,
          trashed INTEGER NOT NULL
        );
        CREATE TABLE summaries (number INTEGER PRIMARY KEY, summary TEXT NOT NULL);
        CREATE TABLE shown (
          rowid INTEGER PRIMARY KEY,
          round INTEGER,
          role TEXT NOT NULL,
          speaker TEXT,
          text BLOB NOT NULL
        );
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE usage (
          session INTEGER NOT NULL,
          seq INTEGER NOT NULL,
          at TEXT NOT NULL,
          provider TEXT NOT NULL,
          model TEXT NOT NULL,
          input_tokens INTEGER NOT NULL,
          output_tokens INTEGER NOT NULL,
          cost_usd REAL,
          copied INTEGER NOT NULL,
          PRIMARY KEY (session, seq)
        ) WITHOUT ROWID;
        CREATE VIRTUAL TABLE texts USING fts5(
          text, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
        );
        PRAGMA user_version = ${INDEX_VERSION};
      `);
    }
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

export async function openContentIndex(options: OpenContentIndexOptions): Promise<ContentIndex> {
  const { file, store } = options;
  const sqlite = await loadSqlite();
  await preparePrivateFile(file);
  let database: DatabaseSync;
  try {
    database = openDatabase(sqlite, file);
  } catch {
    // Derived data only: a file SQLite cannot read (damaged, not a database) is built again.
    await rm(file, { force: true });
    await preparePrivateFile(file);
    database = openDatabase(sqlite, file);
  }
  // The trash is followed too (its sessions' calls were paid for), and left out of searches.
  const listSessions = options.listSessions ?? (() => store.list());
  const statements = new Map<string, StatementSync>();
  const statement = (sql: string): StatementSync => {
    let prepared = statements.get(sql);
    if (!prepared) {
      prepared = database.prepare(sql);
      statements.set(sql, prepared);
    }
    return prepared;
  };
  let listed = new Map<string, ListedSession>();
  let listedFromIndex = false;
  let listedInFull = false;
  let sessions = new Map<number, { id: string; taskSeq: number | null }>();
  // One update at a time in this process; other processes wait on SQLite's write lock.
  let updating: Promise<ContentIndexUpdate> | null = null;

  const indexTexts = options.indexTexts ?? true;
  const insertText = (rowId: number, text: string) => {
    if (indexTexts) statement('INSERT INTO texts(rowid, text) VALUES (?, ?)').run(rowId, text);
  };
  const deleteSessionTexts = (number: number, fromSeq = 0) => {
    statement('DELETE FROM texts WHERE rowid BETWEEN ? AND ?').run(
      number * SESSION_SPAN + fromSeq,
      number * SESSION_SPAN + SESSION_SPAN - 1,
    );
    statement('DELETE FROM shown WHERE rowid BETWEEN ? AND ?').run(
      number * SESSION_SPAN + fromSeq,
      number * SESSION_SPAN + SESSION_SPAN - 1,
    );
    statement('DELETE FROM usage WHERE session = ? AND seq >= ?').run(number, fromSeq);
  };

  async function indexJournal(summary: SessionSummary, entry: IndexedSession, fromSeq: number): Promise<void> {
    // A branch's copy of its parent's journal follows its first event (the parent's usage, not its own).
    let copiedThrough = 0;
    for await (const event of store.read(summary.id, { fromSeq, toSeq: summary.lastSeq })) {
      if (event.type === 'session-created') copiedThrough = event.seq + (event.copied ?? 0);
      if (event.type === 'usage-recorded') {
        statement('INSERT OR REPLACE INTO usage VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
          entry.number,
          event.seq,
          event.at,
          event.provider,
          event.model,
          event.inputTokens,
          event.outputTokens,
          event.costUsd,
          event.seq <= copiedThrough ? 1 : 0,
        );
      }
      if (event.type !== 'message-added') continue;
      const { role, content } = event.message;
      if (role === 'user') entry.taskSeq ??= event.seq;
      if ((role === 'user' || role === 'assistant') && content.trim() !== '') {
        const rowId = entry.number * SESSION_SPAN + event.seq;
        insertText(rowId, content);
        if (indexTexts)
          statement('INSERT OR REPLACE INTO shown VALUES (?, ?, ?, ?, ?)').run(
            rowId,
            event.message.round,
            role,
            event.message.speaker,
            packText(content),
          );
      }
    }
  }

  /**
   * Whether the store's stamp is the one the index last saw (nothing was created, written or
   * deleted since): then the sessions come from the index, each looked up when a query first
   * needs it (a hit's), all of them only for the listing's order or the usage.
   */
  function loadWhileStamped(stamp: string): boolean {
    const saved = statement("SELECT value FROM meta WHERE key = 'stamp'").get();
    if (saved?.value !== stamp) return false;
    listed = new Map();
    sessions = new Map();
    listedFromIndex = true;
    listedInFull = false;
    return true;
  }

  function rememberRow(row: Record<string, unknown>): void {
    const number = Number(row.number);
    let parsed: SessionSummary | undefined;
    const summary = () => {
      parsed ??= JSON.parse(
        String(statement('SELECT summary FROM summaries WHERE number = ?').get(number)?.summary),
      ) as SessionSummary;
      return parsed;
    };
    listed.set(String(row.id), { trashed: row.trashed === 1, summary });
    sessions.set(number, { id: String(row.id), taskSeq: row.task_seq === null ? null : Number(row.task_seq) });
  }

  /** Every session from the index, newest first as the stores list (by `updatedAt`, then id). */
  function listInFull(): void {
    if (!listedFromIndex || listedInFull) return;
    listed = new Map();
    sessions = new Map();
    const rows = statement(
      'SELECT number, id, task_seq, trashed FROM sessions ORDER BY updated_at DESC, id DESC',
    ).all();
    for (const row of rows) rememberRow(row);
    listedInFull = true;
  }

  /** The session of a row's number (looked up in the index when it lists from there). */
  function sessionOf(number: number): { id: string; taskSeq: number | null } | undefined {
    const known = sessions.get(number);
    if (known || !listedFromIndex || listedInFull) return known;
    const row = statement('SELECT number, id, task_seq, trashed FROM sessions WHERE number = ?').get(number);
    if (row) rememberRow(row);
    return sessions.get(number);
  }

  function listedOf(sessionId: string): ListedSession | undefined {
    const known = listed.get(sessionId);
    if (known || !listedFromIndex || listedInFull) return known;
    const row = statement('SELECT number, id, task_seq, trashed FROM sessions WHERE id = ?').get(sessionId);
    if (row) rememberRow(row);
    return listed.get(sessionId);
  }

  // An index that keeps no words keeps no titles or tasks either (and is never trusted on its stamp).
  const keptSummary = (summary: SessionSummary) => (indexTexts ? JSON.stringify(summary) : '');

  /** What a query shows of a session while the store's stamp holds: its summary, and what orders the listing. */
  function keepSummary(number: number, summary: SessionSummary, json: string): void {
    statement('INSERT OR REPLACE INTO summaries VALUES (?, ?)').run(number, json);
    statement('UPDATE sessions SET updated_at = ?, trashed = ? WHERE number = ?').run(
      summary.updatedAt,
      summary.trashedAt == null ? 0 : 1,
      number,
    );
  }

  async function runUpdate(): Promise<ContentIndexUpdate> {
    const report: ContentIndexUpdate = { indexed: 0, dropped: 0, skipped: 0 };
    // Taken before the listing: a change after it moves the stamp, so the next query looks again.
    const saved = statement("SELECT value FROM meta WHERE key = 'stamp'").get()?.value;
    const stamp = (await options.storeStamp?.(saved === undefined ? null : String(saved))) ?? null;
    if (stamp !== null && loadWhileStamped(stamp)) return report;
    const summaries = await listSessions();
    listed = new Map(summaries.map((summary) => [summary.id, listedAs(summary)]));
    listedFromIndex = false;
    database.exec('BEGIN IMMEDIATE');
    try {
      const known = new Map<string, IndexedSession>();
      const rows = statement(`
        SELECT number, id, indexed_seq, summary_key, task_seq, summary FROM sessions JOIN summaries USING (number)`).all();
      for (const row of rows) {
        known.set(String(row.id), {
          number: Number(row.number),
          indexedSeq: Number(row.indexed_seq),
          summaryKey: String(row.summary_key),
          summary: String(row.summary),
          taskSeq: row.task_seq === null ? null : Number(row.task_seq),
        });
      }
      for (const [id, entry] of known) {
        if (listed.has(id)) continue;
        deleteSessionTexts(entry.number);
        statement('DELETE FROM sessions WHERE number = ?').run(entry.number);
        statement('DELETE FROM summaries WHERE number = ?').run(entry.number);
        known.delete(id);
        report.dropped += 1;
      }
      for (const summary of summaries) {
        const entry = known.get(summary.id);
        const json = keptSummary(summary);
        if (!entry || entry.summary === json) continue;
        keepSummary(entry.number, summary, json);
        entry.summary = json;
      }
      const stale = summaries.filter((summary) => {
        const entry = known.get(summary.id);
        return !entry || entry.indexedSeq !== summary.lastSeq || entry.summaryKey !== summaryKey(summary);
      });
      if (stale.length > 20) options.onIndexing?.(stale.length);
      for (const summary of stale) {
        let entry = known.get(summary.id);
        if (!entry) {
          const json = keptSummary(summary);
          const inserted = statement(
            `INSERT INTO sessions(id, indexed_seq, summary_key, updated_at, trashed) VALUES (?, 0, '', '', 0) RETURNING number`,
          ).get(summary.id) as { number: number };
          entry = { number: Number(inserted.number), indexedSeq: 0, summaryKey: '', summary: json, taskSeq: null };
          keepSummary(entry.number, summary, json);
          known.set(summary.id, entry);
        }
        const key = summaryKey(summary);
        if (entry.summaryKey !== key) {
          // Only the summary's row changes: the messages read before stay.
          statement('DELETE FROM texts WHERE rowid = ?').run(entry.number * SESSION_SPAN);
          insertText(entry.number * SESSION_SPAN, Object.values(summaryTexts(summary)).join('\n'));
        }
        // A journal cut back by a repair is read again from its start.
        const fromSeq = entry.indexedSeq > summary.lastSeq ? 0 : entry.indexedSeq;
        if (fromSeq === 0) entry.taskSeq = null;
        if (fromSeq === 0 && entry.indexedSeq > 0) deleteSessionTexts(entry.number, 1);
        let indexedSeq = summary.lastSeq;
        if (summary.lastSeq > fromSeq) {
          try {
            await indexJournal(summary, entry, fromSeq + 1);
          } catch {
            // A journal that cannot be read now is not searched; it is tried again at the next query.
            deleteSessionTexts(entry.number, fromSeq + 1);
            indexedSeq = fromSeq;
            report.skipped += 1;
          }
        }
        statement('UPDATE sessions SET indexed_seq = ?, summary_key = ?, task_seq = ? WHERE number = ?').run(
          indexedSeq,
          key,
          entry.taskSeq,
          entry.number,
        );
        report.indexed += 1;
      }
      // A journal skipped this time leaves no stamp: the next query lists again and tries it.
      if (stamp === null || report.skipped > 0 || !indexTexts) statement("DELETE FROM meta WHERE key = 'stamp'").run();
      else statement("INSERT OR REPLACE INTO meta VALUES ('stamp', ?)").run(stamp);
      database.exec('COMMIT');
      sessions = new Map(Array.from(known, ([id, entry]) => [entry.number, { id, taskSeq: entry.taskSeq }]));
    } catch (error) {
      database.exec('ROLLBACK');
      throw error;
    }
    return report;
  }

  function update(): Promise<ContentIndexUpdate> {
    updating ??= runUpdate().finally(() => {
      updating = null;
    });
    return updating;
  }

  const searchable = (sessionId: string | undefined): sessionId is string =>
    sessionId !== undefined && listedOf(sessionId)?.trashed === false;

  function hitAt(rowId: number, terms: readonly SearchTerm[]): ContentHit | null {
    const indexed = sessionOf(Math.floor(rowId / SESSION_SPAN));
    if (!indexed || !searchable(indexed.id)) return null;
    const sessionId = indexed.id;
    const seq = rowId % SESSION_SPAN;
    const summary = listedOf(sessionId)?.summary();
    if (seq === 0 && summary) {
      const texts = summaryTexts(summary);
      for (const field of summaryFields) {
        const match = findTermMatch(texts[field], terms);
        if (match) return { sessionId, field, seq: null, round: null, role: null, speaker: null, ...match };
      }
      return null;
    }
    // What the hit shows is kept in the index: no journal is read.
    const row = statement('SELECT round, role, speaker, text FROM shown WHERE rowid = ?').get(rowId);
    if (!row || (row.role !== 'user' && row.role !== 'assistant')) return null;
    const content = unpackText(row.text as Uint8Array);
    // Words found apart by the index but not together in the text (a phrase across a line) still show where they are.
    const match = findTermMatch(content, terms) ?? findTermMatch(content, wordsApart(terms));
    if (!match) return null;
    return {
      sessionId,
      field: seq === indexed.taskSeq ? 'task' : 'message',
      seq,
      round: row.round === null ? null : Number(row.round),
      role: row.role,
      speaker: row.speaker === null ? null : String(row.speaker),
      ...match,
    };
  }

  function sessionIds(): string[] {
    listInFull();
    return Array.from(listed).flatMap(([id, session]) => (session.trashed ? [] : [id]));
  }

  function positions(ids: readonly string[]): Map<string, number> {
    if (!listedFromIndex || listedInFull) {
      const wanted = new Set(ids);
      return new Map(sessionIds().flatMap((id, at) => (wanted.has(id) ? [[id, at + 1] as const] : [])));
    }
    // Numbered in the index, in one pass over its order, without listing every session here.
    const rows = statement(`
      SELECT id, position FROM (
        SELECT id, row_number() OVER (ORDER BY updated_at DESC, id DESC) AS position FROM sessions WHERE trashed = 0
      ) WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids));
    return new Map(rows.map((row) => [String(row.id), Number(row.position)]));
  }

  /** Every followed session's summary (the usage's dimensions), read at once when they come from the index. */
  function allSummaries(): Map<string, SessionSummary> {
    if (!listedFromIndex) return new Map(Array.from(listed, ([id, session]) => [id, session.summary()]));
    const summaries = new Map<string, SessionSummary>();
    for (const row of statement('SELECT id, summary FROM sessions JOIN summaries USING (number)').all()) {
      if (listed.has(String(row.id))) summaries.set(String(row.id), JSON.parse(String(row.summary)));
    }
    return summaries;
  }

  async function matchingRows(query: string, sql: string, ...parameters: number[]) {
    const terms = parseQuery(query);
    if (terms.length === 0) return { terms, rowIds: [] as number[] };
    await update();
    const rows = statement(sql).all(matchExpression(terms), ...parameters);
    return { terms, rowIds: rows.map((row) => Number(row.rowid)) };
  }

  return {
    file,
    update,
    sessionIds,
    positions,
    summary: (sessionId) => listedOf(sessionId)?.summary(),
    async search(query, searchOptions = {}) {
      const limit = searchOptions.limit ?? 50;
      const { terms, rowIds } = await matchingRows(
        query,
        'SELECT rowid FROM texts WHERE texts MATCH ? ORDER BY rank LIMIT ?',
        limit,
      );
      const hits: ContentHit[] = [];
      for (const rowId of rowIds) {
        const hit = hitAt(rowId, terms);
        // A title made from the task reads the same twice: once is enough.
        const repeated = hits.some((kept) => kept.sessionId === hit?.sessionId && kept.snippet === hit.snippet);
        if (hit && !repeated) hits.push(hit);
      }
      return hits;
    },
    async matchingSessions(query) {
      const { rowIds } = await matchingRows(
        query,
        `SELECT DISTINCT rowid / ${SESSION_SPAN} AS rowid FROM texts WHERE texts MATCH ?`,
      );
      const ids = rowIds.map((number) => sessionOf(number)?.id);
      return new Set(ids.filter(searchable));
    },
    async *sessionHits(query, hitsOptions = {}) {
      const { terms, rowIds } = await matchingRows(query, 'SELECT rowid FROM texts WHERE texts MATCH ? ORDER BY rowid');
      // In row order: a session's name, title, tags and task first, then its messages as they came.
      const rowsBySession = new Map<string, number[]>();
      for (const rowId of rowIds) {
        const sessionId = sessionOf(Math.floor(rowId / SESSION_SPAN))?.id;
        if (!searchable(sessionId)) continue;
        const rows = rowsBySession.get(sessionId);
        if (rows) rows.push(rowId);
        else rowsBySession.set(sessionId, [rowId]);
      }
      const order = hitsOptions.sessionIds ?? Array.from(rowsBySession.keys());
      for (const sessionId of order) {
        for (const rowId of rowsBySession.get(sessionId) ?? []) {
          const hit = hitAt(rowId, terms);
          if (hit) {
            yield hit;
            break;
          }
        }
      }
    },
    async usage() {
      await update();
      listInFull();
      const entries: UsageEntry[] = [];
      const own = statement(`
        SELECT session, substr(at, 1, 13) AS hour, provider, model, count(*) AS calls,
          sum(input_tokens) AS input, sum(output_tokens) AS output,
          total(cost_usd) AS cost, sum(cost_usd IS NULL) AS unpriced
        FROM usage WHERE copied = 0 GROUP BY session, hour, provider, model`).all();
      for (const row of own) {
        const sessionId = sessions.get(Number(row.session))?.id;
        if (sessionId === undefined) continue;
        entries.push({
          sessionId,
          hour: String(row.hour),
          provider: String(row.provider),
          model: String(row.model),
          calls: Number(row.calls),
          inputTokens: Number(row.input),
          outputTokens: Number(row.output),
          costUsd: Number(row.cost),
          unpricedCalls: Number(row.unpriced),
        });
      }
      // Copies of a parent deleted for good: its calls are counted once, from the first copy seen.
      const counted = new Set<string>();
      const orphanParents = new Set<string>();
      const orphanBranches = new Set<string>();
      for (const row of statement('SELECT * FROM usage WHERE copied = 1 ORDER BY session, seq').all()) {
        const sessionId = sessions.get(Number(row.session))?.id;
        const parentId = sessionId === undefined ? null : listed.get(sessionId)?.summary().parentId;
        if (!sessionId || !parentId || listed.has(parentId)) continue;
        orphanParents.add(parentId);
        orphanBranches.add(sessionId);
        const key = `${parentId}:${row.seq}`;
        if (counted.has(key)) continue;
        counted.add(key);
        entries.push({
          sessionId,
          hour: String(row.at).slice(0, 13),
          provider: String(row.provider),
          model: String(row.model),
          calls: 1,
          inputTokens: Number(row.input_tokens),
          outputTokens: Number(row.output_tokens),
          costUsd: row.cost_usd === null ? 0 : Number(row.cost_usd),
          unpricedCalls: row.cost_usd === null ? 1 : 0,
        });
      }
      return {
        sessions: allSummaries(),
        entries,
        orphans: { branches: orphanBranches.size, parents: orphanParents.size },
      };
    },
    close() {
      statements.clear();
      database.close();
    },
  };
}

/** Each word of each phrase on its own. */
function wordsApart(terms: readonly SearchTerm[]): SearchTerm[] {
  return terms.flatMap((term) => term.words.map((word) => ({ words: [word] })));
}
