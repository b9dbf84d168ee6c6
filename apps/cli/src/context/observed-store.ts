// A store that tells a listener what it appended, once it is durable: `conclave mcp` reports a
// follow-up's progress to its client from it. The store itself is used as it is.
import type { AppendBatch, JournalEvent, SessionStore } from '@resume/core/spec';
import { storeWith } from '@resume/runner/tracing';

export type AppendListener = (sessionId: string, events: readonly JournalEvent[]) => void;

export function observedStore(store: SessionStore, listener: AppendListener): SessionStore {
  return storeWith(store, {
    async append(sessionId: string, batch: AppendBatch) {
      await store.append(sessionId, batch);
      // A listener never fails the run that is writing: the batch is durable.
      try {
        listener(sessionId, batch.events);
      } catch {
        // Nothing to undo.
      }
    },
  });
}
