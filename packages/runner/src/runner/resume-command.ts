// How a run is resumed from the command line: file-started modes through `conclave run`.
import { builtinModes } from '../modes/builtin-modes.js';
import type { ModeRegistry } from '../modes/mode-registry.js';
import type { StartsFrom } from './next-step.js';

/** Whether the session's mode starts from a task or from a file (unknown modes: a task). */
export function startsFromOf(mode: string, modes: ModeRegistry = builtinModes): StartsFrom {
  return modes.has(mode) && modes.get(mode).startsFrom.kind === 'file' ? 'file' : 'task';
}

export function resumeCommandFor(sessionId: string, mode: string, modes: ModeRegistry = builtinModes): string {
  return startsFromOf(mode, modes) === 'file' ? `conclave run --resume ${sessionId}` : `conclave --resume ${sessionId}`;
}
