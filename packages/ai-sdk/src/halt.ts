// The AI SDK turns every error a tool throws into a `tool-error` the model reads, and goes on.
// That is right for the tool's own failures, but not when the session itself cannot go on
// (an unsafe tool call caught in flight that needs a decision, an interrupt, code that no
// longer matches the journal, a lost lease): then the run must stop. A durable tool that
// meets such an error leaves it here, and the session's next durable model call throws it
// instead of calling the provider, which ends generateText / streamText with that error.
import type { Session } from '@resume/core';

const halts = new WeakMap<Session, unknown>();

export function haltWith(session: Session, error: unknown): void {
  if (!halts.has(session)) halts.set(session, error);
}

/** Throws (once) the error a durable tool of this session stopped on. */
export function throwIfHalted(session: Session): void {
  if (!halts.has(session)) return;
  const error = halts.get(session);
  halts.delete(session);
  throw error;
}
