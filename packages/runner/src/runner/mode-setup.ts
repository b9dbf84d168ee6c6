// What the runner hands a mode: the setup helpers while a run is planned (before any
// session exists) and the run context while it runs.
import type { Session } from '@resume/core';
import type { ModeRunContext, ModeSetup } from '../modes/mode.js';
import type { CostGuard } from '../usage/cost-guard.js';
import { DEFAULT_MAX_PARALLEL } from '../workflow/map-limits.js';
import { hashText } from '../workflow/spec-hash.js';
import { watchRequests } from './checkpoint-requests.js';
import { checkRequestedTools, toolsFor } from './run-tools.js';
import { inputFile, type RunnerScope, readInput, recordedSpecText } from './runner-scope.js';

export function modeSetup(scope: RunnerScope): ModeSetup {
  return {
    readFile: (filePath, kind) => readInput(scope, filePath, inputFile(kind)),
    hashText,
    checkTools: (names, file) => checkRequestedTools(scope, names, file),
    workspaceDir: scope.options.workspaceDir,
    maxParallel: scope.options.maxParallel ?? DEFAULT_MAX_PARALLEL,
  };
}

export function modeRunContext(
  scope: RunnerScope,
  session: Session,
  workspaceDir: string,
  costGuard: CostGuard | null = null,
): ModeRunContext {
  const { options } = scope;
  return {
    costGuard,
    requests: watchRequests(scope.engine, session, options.requestPollMs ?? 500),
    checkpointInterval: options.checkpointInterval ?? 1,
    maxParallel: options.maxParallel ?? DEFAULT_MAX_PARALLEL,
    session,
    store: scope.engine.store,
    models: options.models,
    workspaceDir,
    env: options.env ?? {},
    emit: scope.emit,
    ...(options.decisions?.uncertainStep ? { onUncertain: options.decisions.uncertainStep } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    recordedSpec: (kind) => recordedSpecText(scope, session.state, kind),
    tools: (names, file) => toolsFor(scope, session, names, file, workspaceDir),
  };
}
