// What a resume does with a shell step's command that the interrupted run left running (the
// process that started it died, the command did not): it says so, and before the step's
// decision it waits for the command to end, or, when re-running was chosen up front, stops it
// first (recorded with the new attempt's start). A command never runs twice at once.
import type { UncertainDecision } from '@resume/core';
import type { StoppedStepProcess, UncertainStepInfo } from '@resume/core/spec';
import { describeElapsed } from '../config/duration.js';
import { isCommandRunning, stopProcessGroup, waitForCommandEnd } from '../processes/process-group.js';
import type { ModeContext } from './mode-context.js';

type Decide = (step: UncertainStepInfo) => UncertainDecision | Promise<UncertainDecision>;

export function commandAwareDecision(
  context: ModeContext,
  label: string,
  decide: Decide,
  onStopped: (stopped: StoppedStepProcess) => void,
): Decide {
  return async (step) => {
    const running = step.process && isCommandRunning(step.process) ? step.process : null;
    if (!running) return decide(step);
    const ranForMs = () => Math.max(0, Date.now() - Date.parse(step.startedAt));
    context.emit({
      type: 'notice',
      text: `${label}: its command from the interrupted run is still running (pid ${running.pid}, for ${describeElapsed(ranForMs())}).`,
    });
    if (context.uncertainChoice === 'abort') return 'abort';
    if (context.uncertainChoice === 'rerun') {
      const ranFor = ranForMs();
      const signal = await stopProcessGroup(running.processGroup);
      if (signal !== null) {
        onStopped({ ...running, signal, ranForMs: ranFor });
        context.emit({ type: 'notice', text: `${label}: stopped it (${signal}) before running the step again.` });
      }
      return 'rerun';
    }
    context.emit({ type: 'notice', text: `${label}: waiting for it to end before deciding what to do with the step.` });
    await waitForCommandEnd(running, context.session.signal);
    context.emit({ type: 'notice', text: `${label}: its command ended after ${describeElapsed(ranForMs())}.` });
    return decide(step);
  };
}
