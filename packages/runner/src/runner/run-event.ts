// What a run streams to live views (the TUI's run screen, the CLI's progress lines).
// Plain data, so front ends can reduce it without knowing the modes.
import type { UsageTotals } from '@resume/core';
import type { Message } from '@resume/core/spec';

export type RunEvent =
  | { type: 'run-started'; sessionId: string; mode: string; resumed: boolean }
  | { type: 'turn-started'; agent: string; round: number | null; stepKey: string }
  | { type: 'delta'; agent: string; text: string }
  | { type: 'turn-completed'; message: Message; replayed: boolean }
  | { type: 'progress'; label: string; done: number; total: number | null }
  /** A map step's items: how many passed, are running now, went to the dead-letter list. */
  | { type: 'map-progress'; stepId: string; total: number; done: number; running: number; failed: number }
  | { type: 'usage'; totals: UsageTotals }
  | { type: 'checkpoint'; seq: number; label: string | null }
  | { type: 'notice'; text: string };

export type RunEventListener = (event: RunEvent) => void;
