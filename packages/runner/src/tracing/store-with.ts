// A store with some of its members replaced (`append` to watch what is written, `close` to finish
// first) and every other member the store's own, bound to it: how traces and other observers of
// a journal stand on a store without changing it.
import type { SessionStore } from '@resume/core/spec';

export function storeWith(store: SessionStore, overrides: Partial<SessionStore>): SessionStore {
  return new Proxy(store, {
    get(target, property) {
      if (property in overrides) return overrides[property as keyof SessionStore];
      const member = Reflect.get(target, property);
      return typeof member === 'function' ? member.bind(target) : member;
    },
  });
}
