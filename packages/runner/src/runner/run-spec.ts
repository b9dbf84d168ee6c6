// The spec file a run records (a workflow spec, a prompt file): its text as the session
// recorded it and as it is in the workspace now, for the resume plan and --use-edited-spec.
import type { SessionState } from '@resume/core';
import { specKindOf, specPathOf } from './resume-command.js';
import type { RunConfig } from './run-config.js';
import { type RunnerScope, recordedSpecText } from './runner-scope.js';

export async function currentSpecText(
  scope: RunnerScope,
  config: RunConfig,
  workspaceDir = scope.options.workspaceDir,
): Promise<string | null> {
  const specPath = specPathOf(config);
  if (!specPath) return null;
  return scope.readTextFile(scope.resolvePath(specPath, workspaceDir)).catch(() => null);
}

export async function recordedSpecOf(
  scope: RunnerScope,
  state: SessionState,
  config: RunConfig,
): Promise<string | null> {
  const kind = specKindOf(config);
  if (kind === null) return null;
  return recordedSpecText(scope, state, kind).catch(() => null);
}
