// Which chunks of an iterative session are done and which a resume passes over: the run, its
// plan and its estimate of what is left read them here, so they agree.
import type { SessionState } from '@resume/core';

/** Session data key: the chunks `--start-chunk` skipped. */
export const SKIPPED_CHUNKS_KEY = 'iterativeSkipped';

/** The last chunk all agents finished (0 before the first). */
export function chunksDone(state: SessionState): number {
  const progress = state.data.iterative as { chunk?: number } | undefined;
  return typeof progress?.chunk === 'number' ? progress.chunk : 0;
}

/**
 * The chunks the run passes over: those skipped before (journaled), and every unfinished chunk
 * before `startChunk`, also one that was interrupted half way through.
 */
export function chunksPassedOver(state: SessionState, startChunk: number): Set<number> {
  const recorded = state.data[SKIPPED_CHUNKS_KEY];
  const skipped = new Set<number>(
    Array.isArray(recorded) ? recorded.filter((chunk): chunk is number => typeof chunk === 'number') : [],
  );
  for (let chunk = chunksDone(state) + 1; chunk < startChunk; chunk += 1) skipped.add(chunk);
  return skipped;
}

/** The chunk a step belongs to (`chunk-6/architect` → 6), or null for the other steps. */
export function chunkOfStep(key: string): number | null {
  const match = /^chunk-(\d+)\//.exec(key);
  return match ? Number(match[1]) : null;
}
