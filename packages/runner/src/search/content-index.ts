// The content index: an SQLite FTS5 table (node:sqlite, no native build) of every session's
// title, name, tags, task and user and assistant messages, and a table of its model calls
// (the usage ledger), kept beside the listing index
// (docs/decisions/0035-content-index.md). It is derived from the journals and never a
// second source of truth: each query first reads what was appended since the index last
// looked (sessions whose `lastSeq` moved), drops what was deleted, and the file is rebuilt
// from the journals when it is missing or unreadable (or skipped while the store's stamp
// holds). The FTS5 table is contentless and keeps no positions; what a hit shows is kept beside
// it, each session's messages compressed together, and a phrase is checked in that text. An
// encrypted home's index keeps keyed hashes of the words and no text (keyed-words.ts).
import { createHash } from 'node:crypto';
import { chmod, mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from 'node:zlib';
import type { JournalEvent, SessionStore, SessionSummary } from '@resume/core/spec';
import { hashedMatchExpression, hashedText, type WordKey, wordHash } from './keyed-words.js';
import { findTermMatch, matchExpression, parseQuery, type SearchTerm, type TextMatch } from './search-text.js';

/** The index's layout; a file of another version is built again. */
const INDEX_VERSION = 4;
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
  /**
   * For a home encrypted at rest: its current data key. The words are then indexed as keyed
   * hashes and no text is kept (no message, title or snippet): a hit reads its event through the
   * store, which decrypts it, and a word is found whole, not from its start. An index built
   * under another key, or in the clear, is built again.
   */
  wordKey?: WordKey;
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

/** Model calls in one hour (UTC) on one provider and model, of sessions of one workspace, mode and tags, summed. */
export interface UsageEntry {
  /** The hour's start, `2026-11-26T15` (UTC). */
  hour: string;
  provider: string;
  model: string;
  workspaceDir: string | null;
  mode: string | null;
  tags: string[];
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** The known cost (calls of an unknown price count 0; see `unpricedCalls`). */
  costUsd: number;
  unpricedCalls: number;
}

/** What the index keeps of a session's summary: what a hit shows and what the usage is counted by. */
export type KeptSummary = Pick<
  SessionSummary,
  | 'id'
  | 'title'
  | 'name'
  | 'status'
  | 'mode'
  | 'workspaceDir'
  | 'updatedAt'
  | 'parentId'
  | 'tags'
  | 'trashedAt'
  | 'locked'
>;

export interface UsageLedger {
  entries: UsageEntry[];
  /** Sessions encrypted with a key this machine does not hold (their calls cannot be read), and those keys. */
  locked: { sessions: number; keys: string[] };
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
  /** What the index keeps of a session's summary as of the last update (as the store listed it). */
  summary(sessionId: string): KeptSummary | undefined;
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

function summaryTexts(summary: KeptSummary): Record<(typeof summaryFields)[number], string> {
  return { name: summary.name ?? '', title: summary.title, tags: (summary.tags ?? []).join(' ') };
}

/** What the usage is counted by, of a session: `[workspaceDir, mode, tags]`. */
type Dimensions = [string | null, string | null, string[]];

function dimensionsOf(summary: SessionSummary): string {
  return JSON.stringify([summary.workspaceDir, summary.mode, summary.tags ?? []] satisfies Dimensions);
}

/** A short digest of the name, title and tags the index read (what tells it to read them again). */
function summaryKey(summary: KeptSummary): string {
  return createHash('sha256')
    .update(JSON.stringify(Object.values(summaryTexts(summary))))
    .digest('base64url')
    .slice(0, 16);
}

const HOUR_MS = 3_600_000;

/** `2026-11-26T15` of an hour kept as hours since 1970 (UTC). */
const hourText = (hours: unknown) => new Date(Number(hours) * HOUR_MS).toISOString().slice(0, 13);

/** A session the index follows: its summary is parsed when a query first needs it (a hit's, the usage's). */
interface ListedSession {
  trashed: boolean;
  summary(): KeptSummary;
}

function listedAs(summary: SessionSummary): ListedSession {
  return { trashed: summary.trashedAt != null, summary: () => summary };
}

/** The fields of a summary the index keeps (a few of its twenty-odd). */
function keptFields(summary: SessionSummary): KeptSummary {
  const { id, title, name, status, mode, workspaceDir, updatedAt, parentId, tags, trashedAt, locked } = summary;
  return { id, title, name, status, mode, workspaceDir, updatedAt, parentId, tags, trashedAt, locked };
}

/** A message as the index keeps it to show a hit (and to check a phrase): `[seq, round, role, speaker, content]`. */
type ShownMessage = [number, number | null, 'user' | 'assistant', string | null, string];

/**
 * A session's messages as the index keeps them, all in one compressed row: together they
 * compress about twice as well as one by one (a session repeats its own words).
 */
function packMessages(messages: readonly ShownMessage[]): Uint8Array {
  return brotliCompressSync(JSON.stringify(messages), {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: 5,
      [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
    },
  });
}

function unpackMessages(packed: Uint8Array): ShownMessage[] {
  return JSON.parse(brotliDecompressSync(packed).toString('utf8')) as ShownMessage[];
}

async function loadSqlite(): Promise<typeof import('node:sqlite')> {
  try {
    return await import('node:sqlite');
  } catch {
    // The errors' module (and the schemas beside it) is loaded only here: a search that answers
    // before the command line loads nothing it does not use.
    const { UsageError } = await import('@resume/core/spec');
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
        PRAGMA auto_vacuum = FULL;
        DROP TABLE IF EXISTS texts;
        DROP TABLE IF EXISTS usage;
        DROP TABLE IF EXISTS copied_usage;
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
          trashed INTEGER NOT NULL,
          dims TEXT NOT NULL DEFAULT '',
          parent_id TEXT,
          locked_key TEXT
        );
        CREATE TABLE summaries (number INTEGER PRIMARY KEY, summary TEXT NOT NULL);
        CREATE TABLE shown (session INTEGER PRIMARY KEY, messages BLOB NOT NULL);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE usage (
          session INTEGER NOT NULL,
          hour INTEGER NOT NULL,
          provider TEXT NOT NULL,
          model TEXT NOT NULL,
          calls INTEGER NOT NULL,
          input_tokens INTEGER NOT NULL,
          output_tokens INTEGER NOT NULL,
          cost_usd REAL NOT NULL,
          unpriced INTEGER NOT NULL,
          PRIMARY KEY (session, hour, provider, model)
        ) WITHOUT ROWID;
        CREATE TABLE copied_usage (
          session INTEGER NOT NULL,
          seq INTEGER NOT NULL,
          hour INTEGER NOT NULL,
          provider TEXT NOT NULL,
          model TEXT NOT NULL,
          input_tokens INTEGER NOT NULL,
          output_tokens INTEGER NOT NULL,
          cost_usd REAL,
          PRIMARY KEY (session, seq)
        ) WITHOUT ROWID;
        CREATE VIRTUAL TABLE texts USING fts5(
          text, content = '', contentless_delete = 1, detail = none, tokenize = 'unicode61 remove_diacritics 2'
        );
        PRAGMA user_version = ${INDEX_VERSION};
      `);
      // Pages FTS5 frees as it merges its segments go back to the file system (auto_vacuum), so
      // the file stays the size of what it holds; an older file takes the setting by a VACUUM.
      database.exec('VACUUM');
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
  // An index whose words were kept otherwise (in the clear, or under another key) is emptied and built again.
  const words = options.wordKey ? `keyed ${options.wordKey.id}` : 'clear';
  if (
    (options.indexTexts ?? true) &&
    database.prepare("SELECT value FROM meta WHERE key = 'words'").get()?.value !== words
  ) {
    database.exec(`
      BEGIN IMMEDIATE;
      DELETE FROM sessions; DELETE FROM summaries; DELETE FROM shown; DELETE FROM usage; DELETE FROM copied_usage;
      DELETE FROM meta; INSERT INTO texts(texts) VALUES ('delete-all');
      COMMIT;`);
    database.prepare("INSERT INTO meta VALUES ('words', ?)").run(words);
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
  /** The store's summaries as last listed (the usage's dimensions of an index that keeps no words). */
  let listedSummaries = new Map<string, SessionSummary>();
  let listedInFull = false;
  let sessions = new Map<number, { id: string; taskSeq: number | null }>();
  /** The messages kept of the sessions a query has shown hits of, by the session's number. */
  const shownCache = new Map<number, ShownMessage[]>();
  // One update at a time in this process; other processes wait on SQLite's write lock.
  let updating: Promise<ContentIndexUpdate> | null = null;

  const indexTexts = options.indexTexts ?? true;
  const hash = options.wordKey ? wordHash(options.wordKey.key) : null;
  // Only an index in the clear keeps what a hit shows (and can be trusted on the store's stamp).
  const keepsText = indexTexts && hash === null;
  const insertText = (rowId: number, text: string) => {
    if (!indexTexts) return;
    statement('INSERT INTO texts(rowid, text) VALUES (?, ?)').run(rowId, hash ? hashedText(text, hash) : text);
  };
  const deleteSessionTexts = (number: number, fromSeq = 0) => {
    statement('DELETE FROM texts WHERE rowid BETWEEN ? AND ?').run(
      number * SESSION_SPAN + fromSeq,
      number * SESSION_SPAN + SESSION_SPAN - 1,
    );
    if (fromSeq === 0) statement('DELETE FROM shown WHERE session = ?').run(number);
    else keepMessages(number, (messages) => messages.filter(([seq]) => seq < fromSeq));
    // A session's calls are written once its new events are all read (`indexJournal`): only a
    // journal read again from its start has calls to drop.
    if (fromSeq <= 1) {
      statement('DELETE FROM usage WHERE session = ?').run(number);
      statement('DELETE FROM copied_usage WHERE session = ?').run(number);
    }
  };

  /** A session's kept messages, as `change` makes them (its row goes when none is left). */
  const keepMessages = (number: number, change: (messages: ShownMessage[]) => ShownMessage[]) => {
    const row = statement('SELECT messages FROM shown WHERE session = ?').get(number);
    const before = row ? unpackMessages(row.messages as Uint8Array) : [];
    const after = change(before);
    if (after.length === before.length && after.every((message, at) => message === before[at])) return;
    if (after.length === 0) statement('DELETE FROM shown WHERE session = ?').run(number);
    else statement('INSERT OR REPLACE INTO shown VALUES (?, ?)').run(number, packMessages(after));
    shownCache.delete(number);
  };

  async function indexJournal(summary: SessionSummary, entry: IndexedSession, fromSeq: number): Promise<void> {
    // A branch's copy of its parent's journal follows its first event (the parent's usage, not its own).
    let copiedThrough = 0;
    const added: ShownMessage[] = [];
    const calls: Array<Extract<JournalEvent, { type: 'usage-recorded' }>> = [];
    for await (const event of store.read(summary.id, { fromSeq, toSeq: summary.lastSeq })) {
      if (event.type === 'session-created') copiedThrough = event.seq + (event.copied ?? 0);
      if (event.type === 'usage-recorded') calls.push(event);
      if (event.type !== 'message-added') continue;
      const { role, content } = event.message;
      if (role === 'user') entry.taskSeq ??= event.seq;
      if ((role === 'user' || role === 'assistant') && content.trim() !== '') {
        insertText(entry.number * SESSION_SPAN + event.seq, content);
        added.push([event.seq, event.message.round, role, event.message.speaker, content]);
      }
    }
    if (keepsText && added.length > 0) keepMessages(entry.number, (messages) => [...messages, ...added]);
    // The session's own calls summed by hour and model (what the usage reads); the copies of a
    // parent's calls one by one (counted once, by seq, when the parent is gone).
    for (const call of calls) {
      const hour = Math.floor(Date.parse(call.at) / HOUR_MS);
      if (call.seq <= copiedThrough) {
        statement('INSERT OR REPLACE INTO copied_usage VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
          entry.number,
          call.seq,
          hour,
          call.provider,
          call.model,
          call.inputTokens,
          call.outputTokens,
          call.costUsd,
        );
        continue;
      }
      statement(`
        INSERT INTO usage VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)
        ON CONFLICT DO UPDATE SET calls = calls + 1, input_tokens = input_tokens + excluded.input_tokens,
          output_tokens = output_tokens + excluded.output_tokens, cost_usd = cost_usd + excluded.cost_usd,
          unpriced = unpriced + excluded.unpriced`).run(
        entry.number,
        hour,
        call.provider,
        call.model,
        call.inputTokens,
        call.outputTokens,
        call.costUsd ?? 0,
        call.costUsd === null ? 1 : 0,
      );
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
    let parsed: KeptSummary | undefined;
    const summary = () => {
      parsed ??= JSON.parse(
        String(statement('SELECT summary FROM summaries WHERE number = ?').get(number)?.summary),
      ) as KeptSummary;
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
  const keptSummary = (summary: SessionSummary) => (keepsText ? JSON.stringify(keptFields(summary)) : '');

  /** What a query shows of a session while the store's stamp holds: its summary, and what orders the listing. */
  function keepSummary(number: number, summary: SessionSummary, json: string): void {
    statement('INSERT OR REPLACE INTO summaries VALUES (?, ?)').run(number, json);
    statement(
      'UPDATE sessions SET updated_at = ?, trashed = ?, dims = ?, parent_id = ?, locked_key = ? WHERE number = ?',
    ).run(
      summary.updatedAt,
      summary.trashedAt == null ? 0 : 1,
      keepsText ? dimensionsOf(summary) : '',
      summary.parentId,
      summary.locked?.key ?? null,
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
    listedSummaries = new Map(summaries.map((summary) => [summary.id, summary]));
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
      if (stamp === null || report.skipped > 0 || !keepsText) statement("DELETE FROM meta WHERE key = 'stamp'").run();
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

  async function hitAt(rowId: number, terms: readonly SearchTerm[]): Promise<ContentHit | null> {
    const indexed = sessionOf(Math.floor(rowId / SESSION_SPAN));
    if (!indexed || !searchable(indexed.id)) return null;
    const sessionId = indexed.id;
    const seq = rowId % SESSION_SPAN;
    const summary = listedOf(sessionId)?.summary();
    if (seq === 0 && summary) {
      const texts = summaryTexts(summary);
      if (!hasPhrases(Object.values(texts).join('\n'), terms)) return null;
      for (const field of summaryFields) {
        const match = findTermMatch(texts[field], terms);
        if (match) return { sessionId, field, seq: null, round: null, role: null, speaker: null, ...match };
      }
      return null;
    }
    // What the hit shows is kept in the index: no journal is read.
    const shown = keepsText
      ? shownMessages(Math.floor(rowId / SESSION_SPAN)).find(([messageSeq]) => messageSeq === seq)
      : await journalMessage(sessionId, seq);
    if (!shown) return null;
    const [, round, role, speaker, content] = shown;
    // The index finds each word of a phrase (it keeps no positions); the text says whether they come together.
    if (!hasPhrases(content, terms)) return null;
    const match = findTermMatch(content, terms);
    if (!match) return null;
    return { sessionId, field: seq === indexed.taskSeq ? 'task' : 'message', seq, round, role, speaker, ...match };
  }

  /** A message as the journal holds it (an index that keeps no text reads the hit's event through the store). */
  async function journalMessage(sessionId: string, seq: number): Promise<ShownMessage | undefined> {
    try {
      for await (const event of store.read(sessionId, { fromSeq: seq, toSeq: seq })) {
        if (event.type !== 'message-added') continue;
        const { role, round, speaker, content } = event.message;
        if (role === 'user' || role === 'assistant') return [seq, round, role, speaker, content];
      }
    } catch {
      // A journal that cannot be read now shows no hit.
    }
    return undefined;
  }

  function shownMessages(number: number): ShownMessage[] {
    let messages = shownCache.get(number);
    if (!messages) {
      const row = statement('SELECT messages FROM shown WHERE session = ?').get(number);
      messages = row ? unpackMessages(row.messages as Uint8Array) : [];
      shownCache.set(number, messages);
    }
    return messages;
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

  /** The rows that have every word of the query (a phrase's words maybe apart: `hitAt` checks them). */
  async function matchingRows(query: string, sql: string) {
    const terms = parseQuery(query);
    if (terms.length === 0) return { terms, rowIds: [] as Iterable<number> };
    await update();
    const rows = statement(sql).iterate(hash ? hashedMatchExpression(terms, hash) : matchExpression(terms));
    return {
      terms,
      rowIds: (function* () {
        for (const row of rows) yield Number(row.rowid);
      })(),
    };
  }

  return {
    file,
    update,
    sessionIds,
    positions,
    summary: (sessionId) => listedOf(sessionId)?.summary(),
    async search(query, searchOptions = {}) {
      const limit = searchOptions.limit ?? 50;
      const { terms, rowIds } = await matchingRows(query, 'SELECT rowid FROM texts WHERE texts MATCH ? ORDER BY rank');
      const hits: ContentHit[] = [];
      for (const rowId of rowIds) {
        if (hits.length >= limit) break;
        const hit = await hitAt(rowId, terms);
        // A title made from the task reads the same twice: once is enough.
        const repeated = hits.some((kept) => kept.sessionId === hit?.sessionId && kept.snippet === hit.snippet);
        if (hit && !repeated) hits.push(hit);
      }
      return hits;
    },
    async matchingSessions(query) {
      if (parseQuery(query).every((term) => term.words.length === 1)) {
        const { rowIds } = await matchingRows(
          query,
          `SELECT DISTINCT rowid / ${SESSION_SPAN} AS rowid FROM texts WHERE texts MATCH ?`,
        );
        const ids = Array.from(rowIds, (number) => sessionOf(number)?.id);
        return new Set(ids.filter(searchable));
      }
      // A phrase: each row's text says whether its words come together.
      const { terms, rowIds } = await matchingRows(query, 'SELECT rowid FROM texts WHERE texts MATCH ? ORDER BY rowid');
      const found = new Set<string>();
      for (const rowId of rowIds) {
        const sessionId = sessionOf(Math.floor(rowId / SESSION_SPAN))?.id;
        if (sessionId !== undefined && !found.has(sessionId) && (await hitAt(rowId, terms))) found.add(sessionId);
      }
      return found;
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
          const hit = await hitAt(rowId, terms);
          if (hit) {
            yield hit;
            break;
          }
        }
      }
    },
    async usage() {
      await update();
      // Summed by what the report counts by (the hour, the model, the session's workspace, mode
      // and tags), not session by session; an index that keeps no words has no dimensions of
      // its own and sums by session, with the dimensions of the summaries just listed.
      const dimensionsOfRow = (row: Record<string, unknown>): Dimensions => {
        if (row.dims !== '') return JSON.parse(String(row.dims)) as Dimensions;
        const summary = listedSummaries.get(String(row.id));
        return JSON.parse(summary ? dimensionsOf(summary) : '[null, null, []]') as Dimensions;
      };
      const entryOf = (row: Record<string, unknown>, dimensions: Dimensions): UsageEntry => {
        const [workspaceDir, mode, tags] = dimensions;
        return {
          hour: hourText(row.hour),
          provider: String(row.provider),
          model: String(row.model),
          workspaceDir,
          mode,
          tags,
          calls: Number(row.calls),
          inputTokens: Number(row.input),
          outputTokens: Number(row.output),
          costUsd: Number(row.cost),
          unpricedCalls: Number(row.unpriced),
        };
      };
      const entries: UsageEntry[] = [];
      const own = statement(`
        SELECT hour, provider, model, dims, min(id) AS id, sum(calls) AS calls,
          sum(input_tokens) AS input, sum(output_tokens) AS output,
          total(cost_usd) AS cost, sum(unpriced) AS unpriced
        FROM usage JOIN sessions ON sessions.number = usage.session
        GROUP BY hour, provider, model, dims, CASE dims WHEN '' THEN number END`).all();
      for (const row of own) entries.push(entryOf(row, dimensionsOfRow(row)));
      // Copies of a parent deleted for good: its calls are counted once, from the first copy seen.
      const counted = new Set<string>();
      const orphanParents = new Set<string>();
      const orphanBranches = new Set<string>();
      const copies = statement(`
        SELECT seq, hour, provider, model, dims, id, parent_id, 1 AS calls, input_tokens AS input,
          output_tokens AS output, coalesce(cost_usd, 0) AS cost, cost_usd IS NULL AS unpriced
        FROM copied_usage JOIN sessions ON sessions.number = copied_usage.session
        WHERE parent_id IS NOT NULL AND parent_id NOT IN (SELECT id FROM sessions)
        ORDER BY session, seq`).all();
      for (const row of copies) {
        orphanParents.add(String(row.parent_id));
        orphanBranches.add(String(row.id));
        const key = `${row.parent_id}:${row.seq}`;
        if (counted.has(key)) continue;
        counted.add(key);
        entries.push(entryOf(row, dimensionsOfRow(row)));
      }
      const locked = statement(
        'SELECT locked_key, count(*) AS sessions FROM sessions WHERE locked_key IS NOT NULL GROUP BY locked_key ORDER BY locked_key',
      ).all();
      return {
        entries,
        locked: {
          sessions: locked.reduce((total, row) => total + Number(row.sessions), 0),
          keys: locked.map((row) => String(row.locked_key)),
        },
        orphans: { branches: orphanBranches.size, parents: orphanParents.size },
      };
    },
    close() {
      statements.clear();
      database.close();
    },
  };
}

/** Whether every phrase of the query comes together in `text` (its single words the index has checked). */
function hasPhrases(text: string, terms: readonly SearchTerm[]): boolean {
  return terms.every((term) => term.words.length === 1 || findTermMatch(text, [term]) !== null);
}
