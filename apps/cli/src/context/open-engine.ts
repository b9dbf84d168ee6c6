// Creates the engine over a store, with the redactor that keeps secrets from the
// environment out of everything journaled. Loaded only by commands that need sessions.
import { createEngine, createRedactor, type Engine } from '@resume/core/engine';
import type { SessionStore } from '@resume/core/spec';

export function openEngine(input: {
  store: SessionStore;
  env: Readonly<Record<string, string | undefined>>;
  /** Values that are secrets whatever their variables are called (those MCP servers' config names). */
  secrets?: readonly string[];
  snapshotEvery: number;
  now: () => Date;
}): Engine {
  const redactor = createRedactor({ env: { ...input.env }, secrets: input.secrets ?? [] });
  return createEngine({
    store: input.store,
    redact: (value) => redactor.redact(value),
    snapshotEvery: input.snapshotEvery,
    now: input.now,
  });
}
