// "What runs next" for the resume plan and the TUI prompt, in each mode's own words
// ("round 3 of 4, agent critic", "chunk 8 of 15", "step 4 of 6"): the mode says it.
import type { SessionState } from '@resume/core';
import { builtinModes } from '../modes/builtin-modes.js';
import type { ModeRegistry } from '../modes/mode-registry.js';
import type { RunConfig } from './run-config.js';

export function describeNext(state: SessionState, config: RunConfig, modes: ModeRegistry = builtinModes): string {
  return modes.get(config.mode, state.header.id).describeNext(state, config);
}

/** A checkpoint reference from the command line: a seq, `round N` (its last checkpoint) or a label. */
export function findCheckpointSeq(state: SessionState, reference: number | string): number | null {
  if (typeof reference === 'number' || /^\d+$/.test(reference)) {
    const seq = Number(reference);
    return seq >= 1 && seq <= state.lastSeq ? seq : null;
  }
  const round = /^round\s+(\d+)$/i.exec(reference.trim());
  const matches = state.checkpoints.filter((checkpoint) =>
    round ? checkpoint.label?.startsWith(`round ${round[1]},`) : checkpoint.label === reference,
  );
  return matches.at(-1)?.seq ?? null;
}
