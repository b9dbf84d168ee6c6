// How a run is resumed from the command line, and which spec file a run records.
import type { RunConfig } from './run-config.js';

export function resumeCommandFor(sessionId: string, mode: string): string {
  return mode === 'chain' || mode === 'prompt'
    ? `conclave run --resume ${sessionId}`
    : `conclave --resume ${sessionId}`;
}

export function specPathOf(config: RunConfig): string | null {
  return config.mode === 'chain' ? config.workflowPath : config.mode === 'prompt' ? config.promptPath : null;
}

export function specKindOf(config: RunConfig): 'workflow' | 'prompt' | null {
  return config.mode === 'chain' ? 'workflow' : config.mode === 'prompt' ? 'prompt' : null;
}
