// Checkpoints on demand: another process posts a request through the store
// (`conclave checkpoint <id> [label]`, without the lease, never into the journal); the
// running writer polls for requests and, at its next safe point (the next checkpoint the
// mode writes), writes a checkpoint with the requested label and journals the request's id
// as handled, so a request is honoured once, also across a resume.
import type { Engine, Session } from '@resume/core';
import { type SessionRequest, UsageError } from '@resume/core/spec';
import { withNextStep } from './next-step.js';

/** `data` key listing the ids of the requests this session has handled. */
export const HANDLED_REQUESTS_KEY = 'handledRequests';

export function handledRequestIds(session: Pick<Session, 'state'>): Set<string> {
  const value = session.state.data[HANDLED_REQUESTS_KEY];
  return new Set(Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : []);
}

export interface RequestInbox {
  /** Requests seen and not yet handled, oldest first (taken: the caller handles them). */
  take(): SessionRequest[];
  stop(): void;
}

/** Polls the store for requests to `session` every `intervalMs`; null when the store cannot carry them. */
export function watchRequests(
  engine: Pick<Engine, 'store'>,
  session: Session,
  intervalMs: number,
  onError: (error: unknown) => void = () => undefined,
): RequestInbox | null {
  const store = engine.store;
  if (!store.listRequests) return null;
  const listRequests = store.listRequests.bind(store);
  let pending: SessionRequest[] = [];
  const taken = new Set<string>();
  let polling = false;
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      const handled = handledRequestIds(session);
      const requests = await listRequests(session.id);
      for (const request of requests) {
        if (handled.has(request.id) || taken.has(request.id)) continue;
        taken.add(request.id);
        pending.push(request);
      }
    } catch (error) {
      onError(error);
    } finally {
      polling = false;
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), intervalMs);
  timer.unref?.();
  return {
    take() {
      const out = pending;
      pending = [];
      return out;
    },
    stop() {
      clearInterval(timer);
    },
  };
}

export interface PostedCheckpointRequest {
  request: SessionRequest;
  holder: { pid: number; host: string; since: string };
}

/**
 * Asks the running writer of session `id` for a labelled checkpoint. Refused when nothing is
 * running it (no live lease holder) or when the store cannot carry requests.
 */
export async function requestCheckpoint(
  engine: Pick<Engine, 'store' | 'resolveSessionId'>,
  reference: string,
  label: string | null,
  requestedBy: { pid: number; host: string },
): Promise<PostedCheckpointRequest> {
  const id = await engine.resolveSessionId(reference);
  const store = engine.store;
  if (!store.postRequest || !store.listRequests) {
    throw new UsageError(`The ${store.kind} store cannot pass requests to a running session.`, {
      hint: 'Use the file store or the PostgreSQL store.',
    });
  }
  const holder = await store.inspectLease(id);
  if (!holder) {
    throw withNextStep(new UsageError(`Session ${id} is not running, so there is nobody to write a checkpoint.`), {
      kind: 'see-last-checkpoint',
      sessionId: id,
    });
  }
  const request = await store.postRequest(id, { kind: 'checkpoint', label, requestedBy });
  return { request, holder: { pid: holder.pid, host: holder.host, since: holder.since } };
}
