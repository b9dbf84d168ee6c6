// How a session runs, recorded in its header options under `run` so a resume or a
// continue rebuilds exactly the same mode (docs/architecture.md#resume-and-continue). Validated on read by the mode's own
// schema: the header is a boundary like any file.
import type { SessionState } from '@resume/core';
import { IncompatibleSessionError, type JsonValue } from '@resume/core/spec';
import { builtinModes } from '../modes/builtin-modes.js';
import type { Mode, ModeConfig } from '../modes/mode.js';
import type { ModeRegistry } from '../modes/mode-registry.js';
import { withNextStep } from './next-step.js';

/** A recorded run config: the mode's name and what that mode records. */
export type RunConfig = ModeConfig;

export const RUN_OPTIONS_KEY = 'run';

/**
 * The run config a session recorded, with its mode. A session without one was not started
 * by the runner; a mode this registry lacks is an UnknownModeError naming the registered ones.
 */
export function readRunConfig(
  state: SessionState,
  modes: ModeRegistry = builtinModes,
): { mode: Mode; config: RunConfig } {
  const recorded = state.header.options[RUN_OPTIONS_KEY];
  const name = recordedModeName(recorded);
  if (name === null) throw notStartedByRun(state);
  const mode = modes.get(name, state.header.id);
  const parsed = mode.configSchema.safeParse(recorded);
  if (!parsed.success) {
    throw new IncompatibleSessionError(state.header.id, [
      `it has no run configuration this version understands (mode ${state.header.mode})`,
    ]);
  }
  return { mode, config: parsed.data };
}

function recordedModeName(recorded: unknown): string | null {
  return typeof recorded === 'object' &&
    recorded !== null &&
    !Array.isArray(recorded) &&
    typeof (recorded as { mode?: unknown }).mode === 'string'
    ? (recorded as { mode: string }).mode
    : null;
}

/**
 * The refusal of a session a program wrote with the library (a LangGraph thread, an AI SDK or
 * custom session, a hand-made one in a runner mode's name), which the runner neither resumes
 * nor continues: its next step says the program that wrote it continues it. Null for a session
 * that recorded a run (a mode the registry lacks is its run's to word, as readRunConfig does).
 * Only the header is read: a caller may answer from the store's header without replaying the journal.
 */
export function libraryRefusal(state: Pick<SessionState, 'header'>): IncompatibleSessionError | null {
  return recordedModeName(state.header.options[RUN_OPTIONS_KEY]) === null ? notStartedByRun(state) : null;
}

/**
 * A session the library wrote (a LangGraph thread, an AI SDK or custom session): no run
 * configuration, so forcing cannot resume it either; the program that wrote it continues it.
 */
function notStartedByRun(state: Pick<SessionState, 'header'>): IncompatibleSessionError {
  const { id, mode, options } = state.header;
  return withNextStep(new IncompatibleSessionError(id, [`it was not started by the runner (mode ${mode})`]), {
    kind: 'continue-in-its-program',
    sessionId: id,
    threadId: typeof options.threadId === 'string' ? options.threadId : null,
  });
}

export function runConfigAsJson(config: RunConfig): JsonValue {
  return JSON.parse(JSON.stringify(config)) as JsonValue;
}
