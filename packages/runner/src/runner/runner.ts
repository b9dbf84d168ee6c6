// The runner: what the CLI and the TUI call to start, resume, continue and branch runs.
// It turns a request into a session (recording how it runs), drives the mode, and turns
// the outcome into a RunResult; interrupts abort the in-flight call and leave a
// resumable journal. Choices it cannot make alone go to `decisions`, or become typed errors.
//
// Each entry point lives in its own file: start.ts, run-workflow.ts, resume.ts (with
// plan.ts), branch.ts, continue.ts; drive.ts runs a session's mode; session-setup.ts
// creates sessions; runner-scope.ts holds what they share.
import { UsageError } from '@resume/core/spec';
import { branch } from './branch.js';
import { continueSession } from './continue.js';
import { interruptRun } from './drive.js';
import { mapItems, retryItems } from './map-items-command.js';
import { plan } from './plan.js';
import { resume } from './resume.js';
import { runWorkflow } from './run-workflow.js';
import { createRunnerScope, withMcpServers } from './runner-scope.js';
import type { Runner, RunnerOptions } from './runner-types.js';
import { start } from './start.js';

export { resumeCommandFor } from './resume-command.js';
export type {
  AgentInput,
  BranchInput,
  ContinueOptions,
  ItemSelection,
  ModelDecision,
  ModelUnavailableFinding,
  ResumeOptions,
  RunDecisions,
  Runner,
  RunnerOptions,
  RunResult,
  StartInput,
  StartOptions,
  ToolFactoryInput,
  WorkflowInput,
} from './runner-types.js';

export function createRunner(options: RunnerOptions): Runner {
  const scope = createRunnerScope(options);
  return {
    start: (input) => withMcpServers(scope, () => start(scope, input)),
    resume: (sessionId, resumeOptions) => withMcpServers(scope, () => resume(scope, sessionId, resumeOptions)),
    continue: (sessionId, followUp, continueOptions) =>
      withMcpServers(scope, () => continueSession(scope, sessionId, followUp, continueOptions)),
    branch: (sessionId, input) => withMcpServers(scope, () => branch(scope, sessionId, input)),
    runWorkflow: (filePath, input) => withMcpServers(scope, () => runWorkflow(scope, filePath, input)),
    plan: (sessionId, planOptions) => withMcpServers(scope, () => plan(scope, sessionId, planOptions)),
    interrupt: (reason = 'interrupted by a signal') => interruptRun(scope, reason),
    mapItems: (sessionId) => mapItems(scope, sessionId),
    retryItems: (sessionId, selection, resumeOptions) =>
      withMcpServers(scope, () => retryItems(scope, sessionId, selection, resumeOptions)),
  };
}

/** A runner that only plans resumes (dry runs, a details pane): it is never given a model to call. */
export function createPlanner(options: Omit<RunnerOptions, 'models'>): Pick<Runner, 'plan'> {
  const runner = createRunner({
    ...options,
    models: () => {
      throw new UsageError('Planning calls no model.');
    },
  });
  return { plan: runner.plan };
}
