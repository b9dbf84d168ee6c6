// A store that tells a listener what it appended, once it is durable: `conclave mcp` reports a
// follow-up's progress to its client from it. The store itself is used as it is.
import type { AppendBatch, JournalEvent, SessionStore } from '@resume/core/spec';

export type AppendListener = (sessionId: string, events: readonly JournalEvent[]) => void;

export function observedStore(store: SessionStore, listener: AppendListener): SessionStore {
  const append = async (sessionId: string, batch: AppendBatch) => {
    await store.append(sessionId, batch);
    // A listener never fails the run that is writing.
    try {
      listener(sessionId, batch.events);
    } catch {
      // Nothing to undo: the batch is durable.
    }
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'append') return append;
      const member = Reflect.get(target, property);
      return typeof member === 'function' ? member.bind(target) : member;
    },
  });
}
