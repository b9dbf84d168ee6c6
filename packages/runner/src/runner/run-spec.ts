// The spec file a run follows (a workflow spec, a prompt file), as its mode declares it: its
// text as the session recorded it and as it is in the workspace now, for the resume plan and
// --use-edited-spec.
import type { SessionState } from '@resume/core';
import type { Mode } from '../modes/mode.js';
import type { RunConfig } from './run-config.js';
import { inputFile, type RunnerScope, recordedSpecText } from './runner-scope.js';

export function specPathOf(mode: Mode, config: RunConfig): string | null {
  return mode.spec ? mode.spec.path(config) : null;
}

export async function currentSpecText(
  scope: RunnerScope,
  mode: Mode,
  config: RunConfig,
  workspaceDir = scope.options.workspaceDir,
): Promise<string | null> {
  const specPath = specPathOf(mode, config);
  if (!specPath) return null;
  return scope.readTextFile(scope.resolvePath(specPath, workspaceDir), inputFile(mode.spec?.kind)).catch(() => null);
}

export async function recordedSpecOf(scope: RunnerScope, state: SessionState, mode: Mode): Promise<string | null> {
  if (!mode.spec) return null;
  return recordedSpecText(scope, state, mode.spec.kind).catch(() => null);
}
