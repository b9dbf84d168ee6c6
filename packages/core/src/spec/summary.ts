// What listing needs without opening a journal. The engine derives it from the fold
// and hands it to the store with every append; stores keep it in their index.
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { type SessionHeader, sessionHeaderSchema, sessionModeSchema, sessionStatusSchema } from './events.js';
import { sessionIdSchema, sessionIdTime } from './ids.js';

// Built on first use (see lazy-schema.ts), as the event schemas are.
export const sessionSummarySchema = lazySchema(() =>
  z.object({
    id: sessionIdSchema,
    title: z.string(),
    mode: sessionModeSchema,
    /** The status the journal says; `running` without a live lease is shown as interrupted by the engine. */
    status: sessionStatusSchema,
    workspaceDir: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    parentId: sessionIdSchema.nullable(),
    branchPoint: z.number().int().nonnegative().nullable(),
    lastSeq: z.number().int().nonnegative(),
    messageCount: z.number().int().nonnegative(),
    /** Rounds, chunks or steps done, as the mode counts progress (label says which). */
    progress: z
      .object({ label: z.string(), done: z.number().int().nonnegative(), total: z.number().int().nullable() })
      .nullable(),
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    costUsd: z.number().nonnegative().nullable(),
    /** The first user message (the task), shortened, for pickers. */
    task: z.string().nullable(),
    /** A `waiting` session: the question it waits on (the latest unanswered `waitFor`). */
    waitingFor: z.object({ key: z.string(), prompt: z.string() }).nullable().optional(),
    /** A `sleeping` session: when it wakes (ISO time). */
    wakeAt: z.string().optional(),
    /** A session of a registered job (`engine.start`): the job's name and the version it was recorded under. */
    job: z.object({ name: z.string(), version: z.string() }).optional(),
    /** Compressed by the store (`store.archive`); not the person's archive (`archivedAt`). */
    archived: z.boolean().default(false),
    /** How a person organized the session (`metadata-changed` events); absent means unset. */
    name: z.string().nullable().optional(),
    tags: z.array(z.string()).optional(),
    pinned: z.boolean().optional(),
    /** When a person archived it (left out of listings unless asked for); absent or null: not archived. */
    archivedAt: z.string().nullable().optional(),
    /** When it was moved to the trash (left out of listings); absent or null: not in the trash. */
    trashedAt: z.string().nullable().optional(),
    bytes: z.number().int().nonnegative().nullable().default(null),
    /**
     * Set by a store that found the session damaged (a missing or damaged file, a journal cut
     * short of what was known to exist): listings show it as `damaged` with the repair command.
     */
    damage: z.object({ problem: z.string(), file: z.string() }).optional(),
    /**
     * Set by a store that may not read the session's files (EACCES): `path` is the folder or
     * file refused. Listings show it as `unreadable`; its other fields are what was last known.
     */
    unreadable: z.object({ path: z.string(), problem: z.string() }).optional(),
    /**
     * Set by a store that holds no key for the session (it is encrypted with key `key`): its
     * other fields are what the id and the files' times tell. Listings show it as encrypted.
     */
    locked: z.object({ key: z.string() }).optional(),
  }),
);
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

export const sessionQuerySchema = lazySchema(() =>
  z.object({
    status: z.array(sessionStatusSchema).optional(),
    mode: z.array(sessionModeSchema).optional(),
    workspaceDir: z.string().optional(),
    parentId: sessionIdSchema.optional(),
    /** Only sessions updated at or after this ISO time. */
    since: z.string().optional(),
    /** Only sessions updated before this ISO time. */
    before: z.string().optional(),
    /** Id prefix (>= 1 character). */
    idPrefix: z.string().optional(),
    limit: z.number().int().positive().optional(),
    offset: z.number().int().nonnegative().optional(),
  }),
);
/** Listing filters; results are ordered newest first by updatedAt, then id. */
export type SessionQuery = z.infer<typeof sessionQuerySchema>;

export { sessionHeaderSchema };

/**
 * The summary a listing shows for a session whose journal has none to give (empty, missing,
 * unreadable, or cut back by a repair to events written before summaries were kept): what
 * the header says, else what the id says.
 */
export function summaryFromHeader(id: string, header: SessionHeader | null): SessionSummary {
  // An id derived from something else (a LangGraph thread's) names no time a Date can hold: the epoch then.
  const idTime = new Date(sessionIdTime(id));
  const createdAt = header?.createdAt ?? (Number.isNaN(idTime.getTime()) ? new Date(0) : idTime).toISOString();
  return {
    id,
    title: header?.title ?? '(unreadable session)',
    mode: header?.mode ?? 'custom',
    status: 'interrupted',
    workspaceDir: header?.workspaceDir ?? null,
    createdAt,
    updatedAt: createdAt,
    parentId: header?.parentId ?? null,
    branchPoint: header?.branchPoint ?? null,
    lastSeq: 0,
    messageCount: 0,
    progress: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
    task: null,
    archived: false,
    bytes: null,
  };
}
