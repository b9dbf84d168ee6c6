// createEngine({ store }): sessions over any SessionStore (docs/engine.md). Opening takes
// the writer lease and folds from the latest snapshot; listing shows sessions whose
// writer died as interrupted; every event written passes through the redactor.
import { hostname } from 'node:os';
import { Folder, fold, summarize } from '../journal/fold.js';
import type { SessionState } from '../journal/state.js';
import {
  AppendConflictError,
  createSessionId,
  type EventInput,
  InputRejectedError,
  InterruptedError,
  isSessionId,
  JOURNAL_FORMAT_VERSION,
  type JournalEvent,
  type JsonValue,
  parseJournalEvent,
  RecoveryLimitError,
  ReplayMismatchError,
  SessionExistsError,
  type SessionHeader,
  type SessionLease,
  SessionLockedError,
  SessionNameTakenError,
  SessionNotFoundError,
  type SessionQuery,
  type SessionSummary,
  StepAbortedError,
  UncertainStepError,
  UnsupportedFormatError,
  UsageError,
} from '../spec/index.js';
import { checkSessionName, hasName, type MetadataChange, metadataEvent, NO_METADATA } from './metadata.js';
import { quotedQuestion } from './quoted-question.js';
import { createJobRegistry } from './registry.js';
import { ReplayLog } from './replay-log.js';
import { LiveSession, type SessionContext, SNAPSHOT_FORMAT_VERSION } from './session.js';
import type {
  CreateSessionInput,
  Engine,
  EngineOptions,
  ForkOptions,
  OpenSessionOptions,
  RespondOptions,
  RunOptions,
  RunTarget,
  Session,
} from './types.js';
import { acquireLeaseInHandover, answerProblem } from './wait.js';

const DEFAULT_MAX_RECOVERIES = 10;
const MIN_PREFIX_LENGTH = 6;

export function createEngine(options: EngineOptions): Engine {
  const { store } = options;
  const now = options.now ?? (() => new Date());
  const holder = options.holder ?? { pid: process.pid, host: hostname() };
  const identity = <T>(value: T): T => value;

  const context: SessionContext = {
    store,
    holder,
    redact: options.redact ?? identity,
    now,
    snapshotEvery: options.snapshotEvery ?? 1000,
    blobThreshold: options.blobThreshold ?? 64 * 1024,
    fork: (parent, forkOptions) =>
      forkSession(parent.id, parent.committedSeq, { replay: parent.replayPolicy, ...forkOptions }),
  };

  // The last whole-journal folds read here, each with the summary it was read at. A resume
  // reads its session several times before it runs (plan, lineage, open) while the journal
  // does not change: it is folded once and copied after. A different summary (an append, a
  // repair, another process) reads the journal again.
  const folds = new Map<string, { stamp: string; state: SessionState; snapshotSeq: number }>();
  const KEPT_FOLDS = 8;
  const stampOf = async (id: string): Promise<{ stamp: string; lastSeq: number } | null> => {
    const summary = await store.getSummary(id).catch(() => null);
    return summary
      ? { stamp: `${summary.lastSeq}|${summary.updatedAt}|${summary.bytes ?? ''}`, lastSeq: summary.lastSeq }
      : null;
  };

  /**
   * `remember: false` (opening for writing) uses a kept fold but keeps no new one: the writer
   * changes the state at once, and copying a long session's state costs as much as folding it.
   */
  async function loadFolder(
    id: string,
    upTo?: number,
    options: { remember?: boolean } = {},
  ): Promise<{ folder: Folder; snapshotSeq: number }> {
    if (upTo !== undefined) return foldJournal(id, upTo);
    const stamp = await stampOf(id);
    const known = folds.get(id);
    if (stamp && known?.stamp === stamp.stamp) {
      return { folder: new Folder(structuredClone(known.state)), snapshotSeq: known.snapshotSeq };
    }
    const loaded = await foldJournal(id);
    folds.delete(id);
    if (options.remember !== false && stamp && loaded.folder.state.lastSeq === stamp.lastSeq) {
      folds.set(id, {
        stamp: stamp.stamp,
        state: structuredClone(loaded.folder.state),
        snapshotSeq: loaded.snapshotSeq,
      });
      if (folds.size > KEPT_FOLDS) folds.delete(folds.keys().next().value as string);
    }
    return loaded;
  }

  /** Throws when the session is not there or was written by a newer version. */
  async function requireReadable(id: string): Promise<void> {
    const header = await store.getHeader(id);
    if (!header) throw await notFound(id);
    if (header.formatVersion > JOURNAL_FORMAT_VERSION) {
      throw new UnsupportedFormatError(`Session ${id}`, header.formatVersion);
    }
  }

  /**
   * Folds from the latest usable snapshot and the journal after it. With `after`, the events read
   * after the snapshot are collected there, and the snapshot's replay log operations returned
   * (null when no snapshot was used or it kept none).
   */
  async function foldJournal(
    id: string,
    upTo?: number,
    after?: JournalEvent[],
  ): Promise<{ folder: Folder; snapshotSeq: number; operations: JournalEvent[] | null }> {
    await requireReadable(id);
    const snapshot = await store.getSnapshot(id);
    let folder = new Folder();
    let snapshotSeq = 0;
    if (
      snapshot &&
      snapshot.formatVersion === SNAPSHOT_FORMAT_VERSION &&
      (upTo === undefined || snapshot.seq <= upTo)
    ) {
      // A snapshot is derived data: one that does not look like state is ignored and the journal replayed.
      const state = snapshot.state as SessionState;
      if (state && typeof state === 'object' && state.header?.id === id && state.lastSeq === snapshot.seq) {
        // Stores hand out a fresh copy (parsed or cloned), so the folder may own it.
        folder = new Folder(state);
        snapshotSeq = snapshot.seq;
      }
    }
    // The journal must still hold the snapshot's last event: a journal cut back by damage
    // or repair would otherwise be shadowed by a snapshot of events it no longer has.
    let confirmed = snapshotSeq === 0;
    for await (const event of store.read(id, {
      fromSeq: Math.max(1, snapshotSeq),
      ...(upTo === undefined ? {} : { toSeq: upTo }),
    })) {
      if (!confirmed) {
        confirmed = event.seq === snapshotSeq;
        if (confirmed) continue;
        break;
      }
      folder.apply(event);
      after?.push(event);
    }
    if (!confirmed) {
      folder = new Folder();
      snapshotSeq = 0;
      after?.splice(0);
      for await (const event of store.read(id, upTo === undefined ? {} : { toSeq: upTo })) {
        folder.apply(event);
        after?.push(event);
      }
    }
    if (!folder.hasState) throw await notFound(id);
    // Read only when asked for (a store may decode them on first read).
    const operations = after && snapshotSeq > 0 ? (snapshot?.operations ?? null) : null;
    return { folder, snapshotSeq, operations };
  }

  async function notFound(reference: string): Promise<SessionNotFoundError> {
    // As `sessions list` shows them: a session whose writer died is interrupted, not running.
    const recent = await store
      .list({ limit: 5 })
      .then(withLiveStatus)
      .catch(() => undefined);
    return new SessionNotFoundError(reference, undefined, recent ? { recent } : {});
  }

  async function createSession(
    input: CreateSessionInput,
    replayed: { events: EventInput[]; setup: number } = { events: [], setup: 0 },
  ): Promise<Session> {
    const createdAt = now();
    if (input.id !== undefined && !isSessionId(input.id)) {
      throw new UsageError(
        `"${input.id}" is not a session id: ids are 22 lowercase base32 characters (make one with createSessionId()).`,
      );
    }
    const id = input.id ?? createSessionId(createdAt.getTime());
    if (input.id !== undefined && (await store.getHeader(id)) && !(await halfCreated(id))) {
      throw new SessionExistsError(id);
    }
    const header: SessionHeader = context.redact({
      id,
      title: input.title,
      mode: input.mode ?? 'custom',
      workspaceDir: input.workspaceDir ?? null,
      createdAt: createdAt.toISOString(),
      parentId: input.parentId ?? null,
      branchPoint: input.branchPoint ?? null,
      specHash: input.specHash ?? null,
      formatVersion: JOURNAL_FORMAT_VERSION,
      options: input.options ?? {},
      git: input.git ?? null,
    });
    const setupEvents = input.initialEvents ?? [];
    await store.create(header);
    const lease = await leaseOfCreated(id);
    const created = parseJournalEvent({
      type: 'session-created',
      seq: 1,
      at: header.createdAt,
      header,
      ...(setupEvents.length + replayed.setup > 0 ? { setup: setupEvents.length + replayed.setup } : {}),
      ...(replayed.events.length > 0 ? { copied: replayed.events.length } : {}),
    });
    const folder = new Folder();
    folder.apply(created);
    // session-created, the initial events and the first summary go in one durable append.
    const session = new LiveSession(context, folder, lease, 0, {
      pending: [created],
      policy: input.replay ?? 'ordered',
    });
    try {
      const written = session.writeInitial([
        ...replayed.events.slice(0, replayed.setup),
        ...setupEvents,
        ...replayed.events.slice(replayed.setup),
      ]);
      await session.flush();
      // A fork's copied operations replay in the child exactly as they did in the parent.
      if (replayed.events.length > replayed.setup) session.replayFrom(ReplayLog.fromEvents([created, ...written]));
    } catch (error) {
      await lease.release();
      // Another creation of this id removed the header as half-created, then wrote its own session.
      if (AppendConflictError.isInstance(error)) throw new SessionExistsError(id, { cause: error });
      throw error;
    }
    return session;
  }

  /**
   * The lease of the session this process has just created. Between the header and the lease
   * another creation of the same id may take the header for one whose creator died and remove it:
   * the session is that creation's then.
   */
  async function leaseOfCreated(id: string): Promise<SessionLease> {
    try {
      return await store.acquireLease(id, { holder });
    } catch (error) {
      if (SessionNotFoundError.isInstance(error)) throw new SessionExistsError(id, { cause: error });
      throw error;
    }
  }

  async function openSession(id: string, openOptions: OpenSessionOptions = {}): Promise<Session> {
    if (!isSessionId(id)) throw await notFound(id);
    if (!(await store.getHeader(id))) throw await notFound(id);
    const lease = await store.acquireLease(id, { holder });
    try {
      const policy = openOptions.replay ?? 'ordered';
      const { folder, snapshotSeq, log } =
        policy === 'ordered'
          ? await foldWithReplayLog(id)
          : { ...(await loadFolder(id, undefined, { remember: false })), log: undefined };
      const session = new LiveSession(context, folder, lease, snapshotSeq, { policy, ...(log ? { log } : {}) });
      const state = folder.state;
      if (state.status !== 'completed' && openOptions.countRecovery !== false) {
        // The journal still says running while nobody holds the lease: the last writer died.
        const crashed = state.status === 'running';
        const stalled = crashed ? (state.progressSeq > state.lastResumeSeq ? 1 : state.stalledRecoveries + 1) : 0;
        const limit = openOptions.maxRecoveries ?? DEFAULT_MAX_RECOVERIES;
        if (stalled > limit && !openOptions.force) {
          const lastStep = state.steps.at(-1);
          throw new RecoveryLimitError({
            sessionId: id,
            recoveries: stalled,
            limit,
            stepKey: lastStep?.status === 'started' ? lastStep.key : null,
          });
        }
        await session.resumed({ recovery: state.recoveries + 1, pid: holder.pid, host: holder.host, crashed });
      }
      return session;
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  /**
   * Ordered replay needs the session's replay log. It folds from the latest snapshot like a keyed
   * open; the log comes from the operations the snapshot kept and the events after it, or, when
   * the snapshot kept none (a keyed writer's, an older build's, a store that does not keep them),
   * from the journal's events up to the snapshot and after it. Without a usable snapshot the one
   * whole-journal read is both the fold and the log.
   */
  async function foldWithReplayLog(id: string): Promise<{ folder: Folder; snapshotSeq: number; log: ReplayLog }> {
    const after: JournalEvent[] = [];
    const { folder, snapshotSeq, operations } = await foldJournal(id, undefined, after);
    if (operations) return { folder, snapshotSeq, log: ReplayLog.fromOperations(operations, after) };
    // Folded from the first event: `after` is the whole journal, and the next snapshot is due a
    // full interval after the state opened, as if one had just been written.
    if (snapshotSeq === 0) return { folder, snapshotSeq: folder.state.lastSeq, log: ReplayLog.fromEvents(after) };
    const before: JournalEvent[] = [];
    for await (const event of store.read(id, { toSeq: snapshotSeq })) before.push(event);
    return { folder, snapshotSeq, log: ReplayLog.fromEvents([...before, ...after]) };
  }

  async function forkSession(parentId: string, lastSeq: number, forkOptions: ForkOptions): Promise<Session> {
    const at = forkOptions.at ?? lastSeq;
    const parent = await loadFolder(parentId, at);
    if (parent.folder.state.lastSeq !== at) {
      throw new UsageError(
        `Session ${parentId} has no event ${at} to branch from (its last is ${parent.folder.state.lastSeq}).`,
      );
    }
    const parentHeader = parent.folder.state.header;
    const copied: EventInput[] = [];
    let parentSetup = 0;
    let setup = 0;
    for await (const event of store.read(parentId, { toSeq: at })) {
      if (event.type === 'session-created') {
        parentSetup = event.setup ?? 0;
        continue;
      }
      if (event.type === 'status-changed' || event.type === 'session-resumed') continue;
      const { seq, at: _at, ...rest } = event;
      if (seq <= 1 + parentSetup) setup += 1;
      copied.push(rest as EventInput);
    }
    return createSession(
      {
        title: forkOptions.title,
        mode: forkOptions.mode ?? parentHeader.mode,
        workspaceDir: parentHeader.workspaceDir,
        parentId,
        branchPoint: at,
        specHash: parentHeader.specHash,
        options: { ...parentHeader.options, ...(forkOptions.options ?? {}) },
        git: parentHeader.git,
        replay: forkOptions.replay ?? 'ordered',
      },
      { events: copied, setup },
    );
  }

  async function withLiveStatus(summaries: SessionSummary[]): Promise<SessionSummary[]> {
    return Promise.all(
      summaries.map(async (summary) => {
        if (summary.status !== 'running') return summary;
        const holderInfo = await store.inspectLease(summary.id);
        return holderInfo ? summary : { ...summary, status: 'interrupted' as const };
      }),
    );
  }

  /** Sessions outside the trash (sessions in it are listed by `listTrash`). */
  async function listSessions(query: SessionQuery = {}): Promise<SessionSummary[]> {
    // A page without a session in the trash is the answer; otherwise the page is cut from all of them.
    const page = await listWithTrash(query);
    if (!page.some((summary) => summary.trashedAt)) return page;
    const { limit, offset, ...rest } = query;
    const kept = (await listWithTrash(rest)).filter((summary) => !summary.trashedAt);
    return kept.slice(offset ?? 0, limit === undefined ? undefined : (offset ?? 0) + limit);
  }

  async function listTrash(): Promise<SessionSummary[]> {
    const trashed = (await listWithTrash()).filter((summary) => summary.trashedAt);
    return trashed.sort((left, right) => (left.trashedAt ?? '').localeCompare(right.trashedAt ?? ''));
  }

  async function listWithTrash(query: SessionQuery = {}): Promise<SessionSummary[]> {
    const wanted = query.status;
    if (!wanted) return withLiveStatus(await store.list(query));
    const storeStatuses = new Set(wanted);
    if (wanted.includes('interrupted') || wanted.includes('running')) {
      storeStatuses.add('running');
      storeStatuses.add('interrupted');
    }
    const { limit, offset, ...rest } = query;
    const all = await withLiveStatus(await store.list({ ...rest, status: [...storeStatuses] }));
    const matching = all.filter((summary) => wanted.includes(summary.status));
    const start = offset ?? 0;
    return matching.slice(start, limit === undefined ? undefined : start + limit);
  }

  async function deleteSession(id: string, deleteOptions: { force?: boolean } = {}): Promise<void> {
    const holderInfo = await store.inspectLease(id);
    if (holderInfo && !deleteOptions.force) throw new SessionLockedError(id, holderInfo);
    folds.delete(id);
    if (!(await store.delete(id))) throw await notFound(id);
  }

  async function resolveSessionId(reference: string): Promise<string> {
    const trimmed = reference.trim().toLowerCase();
    if (isSessionId(trimmed) && (await store.getHeader(trimmed))) return trimmed;
    const named = trimmed.length > 0 ? (await store.list()).filter((summary) => hasName(summary, trimmed)) : [];
    if (named.length === 1 && named[0]) return named[0].id;
    if (named.length > 1) {
      // Only sessions imported from elsewhere can share a name: the ids tell them apart.
      throw new UsageError(`"${reference.trim()}" names ${named.length} sessions; give the id of one.`, {
        hint: named.map((summary) => `  ${summary.id}  ${summary.title}`).join('\n'),
      });
    }
    if (trimmed.length < MIN_PREFIX_LENGTH) {
      throw new UsageError(
        `"${reference}" is too short to name a session: give at least ${MIN_PREFIX_LENGTH} characters of its id.`,
      );
    }
    if (!/^[0-9a-z]+$/.test(trimmed)) throw await notFound(reference);
    const found = await store.list({ idPrefix: trimmed, limit: 10 });
    // A session in the trash is named by a prefix only when nothing outside the trash shares it.
    const outsideTrash = found.filter((summary) => summary.trashedAt == null);
    const matches = found.length > 1 && outsideTrash.length > 0 ? outsideTrash : found;
    if (matches.length === 1 && matches[0]) return matches[0].id;
    if (matches.length === 0) throw await notFound(reference);
    throw new UsageError(
      `"${reference}" matches ${matches.length === 10 ? 'many' : matches.length} sessions; give more characters of the id.`,
      {
        hint: matches.map((summary) => `  ${summary.id}  ${summary.title}`).join('\n'),
      },
    );
  }

  /** Renames, tags, pins, archives or trashes a session with one `metadata-changed` event. */
  async function changeMetadata(id: string, change: MetadataChange): Promise<SessionSummary> {
    if (!isSessionId(id) || !(await store.getHeader(id))) throw await notFound(id);
    if (typeof change.name === 'string') {
      const name = checkSessionName(change.name);
      const taken = (await store.list()).find((summary) => summary.id !== id && hasName(summary, name));
      if (taken) {
        throw new SessionNameTakenError({ name, holderId: taken.id, holderTitle: taken.title });
      }
    }
    const lease = await store.acquireLease(id, { holder });
    try {
      const { folder } = await loadFolder(id);
      const input = metadataEvent(folder.state.metadata ?? NO_METADATA, change);
      if (input !== null) {
        const expectedSeq = folder.state.lastSeq;
        const event = parseJournalEvent(context.redact({ ...input, seq: expectedSeq + 1, at: now().toISOString() }));
        folder.apply(event);
        await store.append(id, { expectedSeq, epoch: lease.epoch, events: [event], summary: summarize(folder.state) });
      }
      return summarize(folder.state);
    } finally {
      await lease.release();
    }
  }

  /** Whether the session's journal has an event (a session is listed and opened from its first). */
  async function written(id: string): Promise<boolean> {
    for await (const _event of store.read(id, { toSeq: 1 })) return true;
    return false;
  }

  /**
   * Removes a session whose creator died between creating it and appending its first event
   * (a queue item handed out again): nothing of it was ever durable, so it is created again.
   * Its lease is taken first: while its creator may still write, SessionLockedError.
   */
  async function halfCreated(id: string): Promise<boolean> {
    if (await written(id)) return false;
    const lease = await store.acquireLease(id, { holder });
    if (await written(id)) {
      await lease.release();
      return false;
    }
    // Removed under the lease, so no writer starts it meanwhile; the lease goes with it.
    try {
      await store.delete(id);
    } finally {
      await lease.release().catch(() => undefined);
    }
    return true;
  }

  async function respond(
    id: string,
    key: string,
    value: JsonValue,
    respondOptions: RespondOptions = {},
  ): Promise<void> {
    if (!isSessionId(id) || !(await store.getHeader(id))) throw await notFound(id);
    // A runner that waits in its process lets go of the lease just after journaling the question.
    const lease = await acquireLeaseInHandover(
      store,
      id,
      { holder },
      async () => (await loadFolder(id)).folder.state.status === 'waiting',
    );
    try {
      const { folder } = await loadFolder(id);
      const state = folder.state;
      const asked = state.inputs.filter(
        (input) =>
          input.key === key &&
          (respondOptions.occurrence === undefined || input.occurrence === respondOptions.occurrence),
      );
      const open = asked.filter((input) => input.answer === null).at(-1);
      if (!open) {
        const pending = state.inputs.filter((input) => input.answer === null).map((input) => `"${input.key}"`);
        throw new InputRejectedError({
          sessionId: id,
          key,
          problem:
            asked.length > 0
              ? `it was answered already (by ${asked.at(-1)?.answer?.answeredBy ?? 'someone'} at ${asked.at(-1)?.answer?.answeredAt})`
              : pending.length > 0
                ? `the session waits for ${pending.join(', ')}, not "${key}"`
                : 'the session is not waiting for anything',
        });
      }
      const problem = answerProblem(open.schema, value);
      if (problem !== null) {
        throw new InputRejectedError(
          { sessionId: id, key, problem: `${problem} (the question: ${open.prompt})` },
          { hint: `The expected answer: ${JSON.stringify(open.schema)}` },
        );
      }
      const inputs: EventInput[] = [
        {
          type: 'input-received',
          key,
          occurrence: open.occurrence,
          value,
          answeredBy: respondOptions.answeredBy ?? null,
        },
      ];
      if (state.status === 'waiting') {
        inputs.push({
          type: 'status-changed',
          status: 'interrupted',
          reason: `${quotedQuestion(open.prompt)} answered: resume it to continue`,
          error: null,
        });
      }
      const expectedSeq = state.lastSeq;
      const events = inputs.map((input) => {
        const event = parseJournalEvent(
          context.redact({ ...input, seq: folder.state.lastSeq + 1, at: now().toISOString() }),
        );
        folder.apply(event);
        return event;
      });
      await store.append(id, { expectedSeq, epoch: lease.epoch, events, summary: summarize(folder.state) });
    } finally {
      await lease.release();
    }
  }

  async function run<R>(
    target: RunTarget,
    job: (session: Session) => R | Promise<R>,
    runOptions: RunOptions = {},
  ): Promise<R> {
    const existing =
      typeof target === 'string'
        ? target
        : target.id !== undefined && (await store.getHeader(target.id)) && (await written(target.id))
          ? target.id
          : null;
    const session =
      existing !== null
        ? await openSession(existing, { ...runOptions, replay: 'ordered' })
        : await createSession({ ...(target as CreateSessionInput), replay: 'ordered' });
    try {
      const result = await job(session);
      await session.complete();
      return result;
    } catch (error) {
      if (InterruptedError.isInstance(error) || session.signal.aborted) {
        await session.interrupt().catch(() => undefined);
      } else if (
        UncertainStepError.isInstance(error) ||
        StepAbortedError.isInstance(error) ||
        ReplayMismatchError.isInstance(error)
      ) {
        // Waiting for a decision, or for code that matches the journal: not a failure, not a crash.
        await session.interrupt('waiting for a decision').catch(() => undefined);
      } else if (session.state.status === 'running') {
        await session.fail(error).catch(() => undefined);
      }
      throw error;
    } finally {
      await session.close();
    }
  }

  async function readSession(id: string, readOptions: { at?: number } = {}): Promise<SessionState> {
    if (!isSessionId(id)) throw await notFound(id);
    const { folder } = await loadFolder(id, readOptions.at);
    if (readOptions.at !== undefined && folder.state.lastSeq !== readOptions.at) {
      throw new UsageError(`Session ${id} has no event ${readOptions.at} (its last is ${folder.state.lastSeq}).`);
    }
    const state = folder.state;
    if (state.status === 'running' && !(await store.inspectLease(id))) {
      return { ...state, status: 'interrupted' };
    }
    return state;
  }

  const jobs = createJobRegistry({ store, run, listSessions, readSession }, now);

  return {
    store,
    register: jobs.register,
    start: jobs.start,
    recover: jobs.recover,
    createSession: (input) => createSession(input),
    openSession,
    run,
    respond,
    changeMetadata,
    readSession,
    readEvents(id, range) {
      return store.read(id, range);
    },
    listSessions,
    listTrash,
    deleteSession,
    resolveSessionId,
    async close() {
      await store.close();
    },
  };
}

export { fold };
