// "What runs next" for the resume plan and the TUI prompt, in each mode's own words
// ("round 3 of 4, agent critic", "chunk 8 of 15", "step 4 of 6").
import type { SessionState } from '@resume/core';
import type { RunConfig } from './run-config.js';

function lastStep(state: SessionState) {
  return state.steps.at(-1);
}

export function describeNext(state: SessionState, config: RunConfig): string {
  const last = lastStep(state);
  switch (config.mode) {
    case 'discussion': {
      const speakers = [...config.agents.map((agent) => agent.name), config.judge.name];
      const match = last ? /^round-(\d+)\/(.+)$/.exec(last.key) : null;
      // "round 2 of 4": the prompt says how far the discussion got, not only where it goes on.
      const at = (round: number, speaker: string | undefined) =>
        `round ${round} of ${config.maxRounds}, agent ${speaker}`;
      if (!last || !match) return at(1, speakers[0]);
      const round = Number(match[1]);
      const speaker = match[2] ?? '';
      if (last.status !== 'completed') return at(round, speaker);
      const index = speakers.indexOf(speaker);
      const next = speakers[index + 1];
      return next === undefined ? at(round + 1, speakers[0]) : at(round, next);
    }
    case 'iterative': {
      const progress = state.data.iterative as { chunk?: number; totalChunks?: number } | undefined;
      const done = typeof progress?.chunk === 'number' ? progress.chunk : Math.max(0, config.startChunk - 1);
      const total = typeof progress?.totalChunks === 'number' ? progress.totalChunks : null;
      if (total !== null && done >= total) return 'writing the outputs';
      const next = Math.max(done + 1, config.startChunk);
      const of = total === null ? '' : ` of ${total}`;
      if (next === done + 1) return `chunk ${next}${of}`;
      const skipped = next - 1 === done + 1 ? `chunk ${done + 1}` : `chunks ${done + 1}–${next - 1}`;
      return `chunk ${next}${of} (${skipped} skipped by --start-chunk)`;
    }
    case 'chain': {
      const progress = state.data.chain as { step?: number; totalSteps?: number } | undefined;
      const done = typeof progress?.step === 'number' ? progress.step : 0;
      const total = typeof progress?.totalSteps === 'number' ? ` of ${progress.totalSteps}` : '';
      // A shell step still going (keys are `step-N/shell`, or `step[<id>]/shell` since step ids).
      const attempts = last?.key.endsWith('/shell') && last.status !== 'completed' ? last.attempts.length : 0;
      return attempts > 0
        ? `step ${done + 1}${total}, attempt ${attempts + (last?.status === 'started' ? 0 : 1)}`
        : `step ${done + 1}${total}`;
    }
    case 'orchestrated':
    case 'prompt': {
      const match = last ? /^turn-(\d+)\/(?:tool-\d+\/)?(.+)$/.exec(last.key) : null;
      if (!last || !match) return 'turn 1';
      const turn = Number(match[1]);
      return last.status === 'completed' ? `turn ${turn} (after ${match[2]})` : `turn ${turn}, ${match[2]}`;
    }
  }
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
