// `runner.start`: a run from a task, in any registered mode that starts from one (built in:
// discussion, iterative, orchestrated). The mode plans the run; the task and what the mode
// records (a project file) are journaled when the session starts, so a resume runs what was recorded.
import { UsageError } from '@resume/core/spec';
import { hashText } from '../workflow/spec-hash.js';
import { drive } from './drive.js';
import { modeSetup } from './mode-setup.js';
import { withNextStep } from './next-step.js';
import type { RunnerScope } from './runner-scope.js';
import type { RunResult, StartInput } from './runner-types.js';
import { createRunSession, taskMessage } from './session-setup.js';

export async function start(scope: RunnerScope, input: StartInput): Promise<RunResult> {
  const mode = scope.modes.get(input.mode);
  if (mode.startsFrom.kind !== 'task') {
    throw withNextStep(new UsageError(`The ${mode.name} mode runs ${mode.startsFrom.describe}, not a task.`), {
      kind: 'run-a-file',
    });
  }
  const task = input.task.trim();
  if (task === '') throw withNextStep(new UsageError('The task is empty.'), { kind: 'give-a-task' });
  const planned = await mode.start(
    {
      from: 'task',
      task,
      ...(input.agents ? { agents: input.agents } : {}),
      ...(input.judge ? { judge: input.judge } : {}),
      options: input.options ?? {},
    },
    modeSetup(scope),
  );
  const session = await createRunSession(scope, {
    title: input.title ?? planned.title ?? task.split('\n')[0]!.slice(0, 80),
    config: planned.config,
    record: input.record,
    initialEvents: [
      taskMessage(task),
      ...planned.events,
      { type: 'spec-recorded', kind: 'task', path: null, hash: hashText(task), blob: null, content: task },
    ],
    specHash: hashText(task),
  });
  return drive(scope, session, mode, planned.config, false);
}
