// The exact command that resumes a session, printed after an interrupt and in `show`.
import type { SessionMode } from '@resume/core/spec';

export function resumeCommandFor(id: string, mode: SessionMode): string {
  return mode === 'chain' || mode === 'prompt' ? `conclave run --resume ${id}` : `conclave --resume ${id}`;
}
