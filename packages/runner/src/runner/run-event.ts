// What a run streams to live views (the TUI's run screen, the CLI's progress lines).
// Plain data, so front ends can reduce it without knowing the modes.
import type { UsageTotals } from '@resume/core';
import type { Message } from '@resume/core/spec';

export type RunEvent =
  /** `roundUnit`: what the `round` of this run's turns counts (discussion rounds, document chunks). */
  | { type: 'run-started'; sessionId: string; mode: string; resumed: boolean; roundUnit: 'round' | 'chunk' | 'step' }
  | { type: 'turn-started'; agent: string; round: number | null; stepKey: string }
  | { type: 'delta'; agent: string; text: string }
  | { type: 'turn-completed'; message: Message; replayed: boolean }
  /** `detail`: what the step found at this count (`33% complete, missing usage`, `scored 70`). */
  | { type: 'progress'; label: string; done: number; total: number | null; detail?: string }
  /** A map step's items: how many passed, are running now, went to the dead-letter list. */
  | { type: 'map-progress'; stepId: string; total: number; done: number; running: number; failed: number }
  | { type: 'usage'; totals: UsageTotals }
  | { type: 'checkpoint'; seq: number; label: string | null }
  | { type: 'notice'; text: string }
  /** What the running shell step's command printed just now (stdout and stderr, as it came). */
  | { type: 'shell-output'; step: string; text: string }
  /** A parallel group's steps and where each stands: the whole list, on every change. */
  | { type: 'parallel'; group: string; number: number; branches: ParallelBranchState[]; finished: boolean };

/** `not-started`: the group stopped (interrupt, cost limit) before this step's turn came. */
export type BranchState =
  | 'waiting'
  | 'running'
  | 'completed'
  | 'replayed'
  | 'skipped'
  | 'failed'
  | 'interrupted'
  | 'not-started';

export interface ParallelBranchState {
  /** The step's id. */
  id: string;
  state: BranchState;
  /** What it is doing or why it failed (`attempt 2/3`, `lead is speaking`, the error's first line). */
  detail: string | null;
}

export type RunEventListener = (event: RunEvent) => void;
