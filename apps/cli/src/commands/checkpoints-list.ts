// `conclave checkpoints list <id>`: where a session can be resumed or branched from; for a
// LangGraph thread, its graph's checkpoints. Oldest first; the newest 50 in a terminal, all with
// --json, the newest N with --limit.
import type { JsonValue } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';
import { formatWhen } from '../output/format.js';
import { limitOption } from '../program/limit-option.js';
import { resolveSession } from '../sessions/resolve-session.js';
import { shortIdsOfStore } from '../sessions/short-ids.js';
import { threadIdOf } from '../sessions/thread-id.js';

/** Checkpoints listed in a terminal without --limit: the newest this many. */
const HUMAN_DEFAULT_LIMIT = 50;

/** The newest `limit` of a list kept oldest first, and how many older ones were left out. */
interface Newest<T> {
  shown: T[];
  older: number;
  total: number;
}

function newestOf<T>(all: T[], limit: number | undefined): Newest<T> {
  const shown = limit === undefined ? all : all.slice(Math.max(0, all.length - limit));
  return { shown, older: all.length - shown.length, total: all.length };
}

/** A session's checkpoints, oldest first, and how a terminal shows the newest of them. */
interface CheckpointListing<T> {
  rows: T[];
  /** The heading, the note of older ones left out, the table and what to do next. */
  table(newest: Newest<T>): Promise<void> | void;
}

export async function listCheckpointsCommand(
  context: CliContext,
  input: { reference: string; options: Record<string, unknown> },
): Promise<number> {
  const limit = limitOption(input.options) ?? (context.options.json ? undefined : HUMAN_DEFAULT_LIMIT);
  const id = await resolveSession(context, input.reference);
  // A LangGraph thread's checkpoints are its graph's: one read of its journal, no fold.
  const header = await (await context.store()).getHeader(id);
  const threadId = header ? threadIdOf(header) : null;
  return threadId !== null
    ? showListing(context, id, await graphCheckpoints(context, id, threadId), limit)
    : showListing(context, id, await sessionCheckpoints(context, id), limit);
}

/** Prints the newest `limit` of a listing: as JSON, or the listing's table. */
async function showListing<T>(
  context: CliContext,
  id: string,
  listing: CheckpointListing<T>,
  limit: number | undefined,
): Promise<number> {
  const newest = newestOf(listing.rows, limit);
  if (context.options.json) {
    context.terminal.data(JSON.stringify(newest.shown));
    return 0;
  }
  if (newest.total === 0) {
    context.terminal.out(`Session ${id} has no checkpoints yet.`);
    return 0;
  }
  await listing.table(newest);
  return 0;
}

/** The checkpoints a run wrote (where it can be resumed or branched from). */
async function sessionCheckpoints(
  context: CliContext,
  id: string,
): Promise<CheckpointListing<{ seq: number; label: string | null; at: string }>> {
  const state = await (await context.engine()).readSession(id);
  return {
    rows: state.checkpoints.map((checkpoint) => ({ seq: checkpoint.seq, label: checkpoint.label, at: checkpoint.at })),
    async table(newest) {
      context.terminal.out(`${state.title} (${id})`);
      noteOlder(context, newest);
      context.terminal.out(context.terminal.dim(`${'SEQ'.padStart(6)}  ${'WHEN'.padEnd(16)}  LABEL`));
      for (const checkpoint of newest.shown)
        context.terminal.out(
          `${String(checkpoint.seq).padStart(6)}  ${formatWhen(checkpoint.at).padEnd(16)}  ${checkpoint.label ?? ''}`,
        );
      const shortId = await shortIdsOfStore(context, [id]);
      context.terminal.note(
        context.terminal.dim(
          `Branch from one with: conclave --branch-from ${shortId(id)} --from-checkpoint <seq> "question"`,
        ),
      );
    },
  };
}

/** A LangGraph checkpoint as the thread's journal records it (no channel value decoded). */
interface GraphCheckpointRow {
  seq: number;
  label: null;
  at: string;
  checkpointId: string;
  /** '' for the root graph, a subgraph's path otherwise. */
  namespace: string;
  parentCheckpointId: string | null;
  /** From the checkpoint's metadata, when it is plain JSON (null otherwise). */
  step: number | null;
  source: string | null;
}

/** The checkpoints a graph saved on a thread, read from its journal. */
async function graphCheckpoints(
  context: CliContext,
  id: string,
  threadId: string,
): Promise<CheckpointListing<GraphCheckpointRow>> {
  const store = await context.store();
  const rows: GraphCheckpointRow[] = [];
  for await (const event of store.read(id)) {
    if (event.type !== 'graph-checkpoint-saved') continue;
    const metadata = plainMetadata(event.data);
    rows.push({
      seq: event.seq,
      label: null,
      at: event.at,
      checkpointId: event.checkpointId,
      namespace: event.namespace,
      parentCheckpointId: event.parentCheckpointId,
      step: typeof metadata.step === 'number' ? metadata.step : null,
      source: typeof metadata.source === 'string' ? metadata.source : null,
    });
  }
  return {
    rows,
    table(newest) {
      context.terminal.out(
        `LangGraph thread ${JSON.stringify(threadId)} (${id}): ${newest.total} checkpoints, oldest first`,
      );
      noteOlder(context, newest);
      context.terminal.out(
        context.terminal.dim(
          `${'STEP'.padStart(6)}  ${'SOURCE'.padEnd(8)}  ${'WHEN'.padEnd(16)}  ${'NAMESPACE'.padEnd(12)}  CHECKPOINT`,
        ),
      );
      for (const row of newest.shown)
        context.terminal.out(
          `${String(row.step ?? '').padStart(6)}  ${(row.source ?? '').padEnd(8)}  ${formatWhen(row.at).padEnd(16)}  ` +
            `${(row.namespace === '' ? '(root)' : row.namespace).padEnd(12)}  ${row.checkpointId}`,
        );
      context.terminal.note(
        context.terminal.dim(
          `Read one from your app: graph.getState({ configurable: { thread_id: ${JSON.stringify(threadId)}, checkpoint_id: "<checkpoint>" } })`,
        ),
      );
    },
  };
}

/** Says, above the table, how many older checkpoints the limit left out and how to see them. */
function noteOlder(context: CliContext, newest: Newest<unknown>): void {
  if (newest.older === 0) return;
  context.terminal.note(
    context.terminal.dim(
      `… ${newest.older} older, not shown: ${newest.shown.length === 1 ? 'the newest follows' : `the newest ${newest.shown.length} follow`} (use --limit ${newest.total}, or --json for all)`,
    ),
  );
}

/** A checkpoint's metadata as the saver stored it, when that is plain JSON (`{ type: 'json', json }`). */
function plainMetadata(data: JsonValue): Record<string, unknown> {
  const metadata = (data as { metadata?: { json?: unknown } } | null)?.metadata?.json;
  return typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)
    ? (metadata as Record<string, unknown>)
    : {};
}
