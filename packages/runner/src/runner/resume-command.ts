// How a run is resumed from the command line: file-started modes through `conclave run`.
import { builtinModes } from '../modes/builtin-modes.js';
import type { ModeRegistry } from '../modes/mode-registry.js';

export function resumeCommandFor(sessionId: string, mode: string, modes: ModeRegistry = builtinModes): string {
  return modes.has(mode) && modes.get(mode).startsFrom.kind === 'file'
    ? `conclave run --resume ${sessionId}`
    : `conclave --resume ${sessionId}`;
}
