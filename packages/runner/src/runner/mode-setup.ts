// What the runner hands a mode: the setup helpers while a run is planned (before any
// session exists) and the run context while it runs.
import type { Session } from '@resume/core';
import { checkMcpServers } from '../mcp/mcp-pool.js';
import type { ModeRunContext, ModeSetup } from '../modes/mode.js';
import { promptKeeper } from '../tracing/prompt-copy.js';
import type { CostGuard } from '../usage/cost-guard.js';
import { DEFAULT_MAX_PARALLEL } from '../workflow/map-limits.js';
import { hashText } from '../workflow/spec-hash.js';
import { watchRequests } from './checkpoint-requests.js';
import { checkRequestedTools, toolsFor } from './run-tools.js';
import { inputFile, mcpPool, type RunnerScope, readInput, recordedSpecText } from './runner-scope.js';

export function modeSetup(scope: RunnerScope): ModeSetup {
  return {
    readFile: (filePath, kind) => readInput(scope, filePath, inputFile(kind)),
    hashText,
    checkTools: (names, file) => checkRequestedTools(scope, names, file),
    checkMcpServers: (names, file) => checkMcpServers(names, scope.options.mcp, file),
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
    ...(options.parallel !== undefined ? { parallel: options.parallel } : {}),
    ...(options.stepTimeoutMs !== undefined ? { stepTimeoutMs: options.stepTimeoutMs } : {}),
    ...(options.capturePrompts ? { keepPrompt: promptKeeper(scope.engine.store, options.env ?? {}) } : {}),
    session,
    store: scope.engine.store,
    models: options.models,
    ...(options.providers ? { providers: options.providers } : {}),
    workspaceDir,
    env: options.env ?? {},
    emit: scope.emit,
    ...(options.decisions?.uncertainStep ? { onUncertain: options.decisions.uncertainStep } : {}),
    ...(options.decisions?.uncertainChoice ? { uncertainChoice: options.decisions.uncertainChoice } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    recordedSpec: (kind) => recordedSpecText(scope, session.state, kind),
    tools: (names, file) => toolsFor(scope, session, names, file, workspaceDir),
    async mcpTools(servers, file) {
      if (servers.length === 0) return [];
      checkMcpServers(servers, options.mcp, file);
      return mcpPool(scope).toolsFor(servers, session, workspaceDir, (text) => scope.emit({ type: 'notice', text }));
    },
  };
}
