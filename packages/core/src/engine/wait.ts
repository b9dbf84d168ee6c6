// Waiting for a person's answer (`session.waitFor` with `wait`): the JSON Schema journaled with
// a question, and the wait itself, woken by the store's `watch` (PostgreSQL: an answer given on
// another machine arrives as a notification) or, for stores without one, by polling.
import { z } from 'zod';
import {
  type AcquireLeaseOptions,
  InterruptedError,
  type JsonValue,
  type SessionLease,
  SessionLockedError,
  type SessionStore,
} from '../spec/index.js';
import type { AnswerSchema } from './types.js';

/** The JSON Schema of a zod schema (null for other schemas, or shapes JSON Schema cannot say). */
export function answerSchemaJson(schema: AnswerSchema<unknown>): JsonValue | null {
  // zod's schemas say so through Standard Schema, the interface they implement.
  const vendor = (schema as { '~standard'?: { vendor?: unknown } } | null)?.['~standard']?.vendor;
  if (vendor !== 'zod') return null;
  try {
    return JSON.parse(JSON.stringify(z.toJSONSchema(schema as unknown as z.ZodType))) as JsonValue;
  } catch {
    return null;
  }
}

/** Checks an answer against the JSON Schema journaled with its question: null when it fits, else the problem. */
export function answerProblem(schema: JsonValue | null, value: JsonValue): string | null {
  if (schema === null) return null;
  let parser: z.ZodType;
  try {
    parser = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return null;
  }
  const parsed = parser.safeParse(value);
  return parsed.success ? null : z.prettifyError(parsed.error);
}

/** How long the lease of a session changing hands around a question is asked for again. */
const HANDOVER_MS = 10_000;
const HANDOVER_POLL_MS = 20;

/**
 * The lease of a session whose question and answer are changing hands: the runner lets go of
 * it just after journaling the question, and whoever answers just after journaling the answer,
 * so a lease held by a live process is asked for again for a while before giving up.
 */
export async function acquireLeaseInHandover(
  store: SessionStore,
  sessionId: string,
  options: AcquireLeaseOptions,
  /** Asked once, when the lease is first found held: whether the session is changing hands at all. */
  inHandover: () => Promise<boolean> = async () => true,
): Promise<SessionLease> {
  const deadline = Date.now() + HANDOVER_MS;
  let handover: boolean | null = null;
  for (;;) {
    try {
      return await store.acquireLease(sessionId, options);
    } catch (error) {
      if (!SessionLockedError.isInstance(error) || Date.now() >= deadline) throw error;
      handover ??= await inHandover();
      if (!handover) throw error;
      await new Promise((resolve) => setTimeout(resolve, HANDOVER_POLL_MS));
    }
  }
}

const WATCHED_POLL_MS = 30_000;
const UNWATCHED_POLL_MS = 1_000;

/**
 * Resolves once the journal of `sessionId` (after `afterSeq`) holds the answer to
 * `key` #`occurrence`, or the timeout passed; rejects with `InterruptedError` on abort.
 */
export async function waitForAnswer(
  store: SessionStore,
  sessionId: string,
  afterSeq: number,
  key: string,
  occurrence: number,
  options: { timeoutMs?: number; pollMs?: number; signal: AbortSignal },
): Promise<boolean> {
  let wake: () => void = () => {};
  const watch = store.watch
    ? await store.watch((change) => {
        if (change.sessionId === sessionId) wake();
      })
    : null;
  const pollMs = options.pollMs ?? (watch ? WATCHED_POLL_MS : UNWATCHED_POLL_MS);
  const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
  try {
    for (;;) {
      for await (const event of store.read(sessionId, { fromSeq: afterSeq + 1 })) {
        if (event.type === 'input-received' && event.key === key && event.occurrence === occurrence) return true;
      }
      const left = deadline - Date.now();
      if (left <= 0) return false;
      if (options.signal.aborted) throw new InterruptedError(sessionId, 'Interrupted while waiting for an answer.');
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          options.signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(pollMs, left));
        options.signal.addEventListener('abort', done, { once: true });
        wake = done;
      });
    }
  } finally {
    await watch?.close();
  }
}
