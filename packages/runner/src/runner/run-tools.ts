// The tools a run offers its models: the workspace tools (or the caller's factory), checked
// against the names a run or a prompt file asks for before any session exists.
import type { Session } from '@resume/core';
import { ASK_USER_TOOL, askUserTool } from '../modes/ask-user-tool.js';
import type { ModeTool } from '../modes/mode-context.js';
import { adaptWorkspaceTools } from '../modes/workspace-tool-adapter.js';
import { createWorkspaceTools } from '../tools/workspace-tools.js';
import { checkToolNames } from './check-tool-names.js';
import type { RunnerScope } from './runner-scope.js';

function workspaceTools(scope: RunnerScope, workspaceDir = scope.options.workspaceDir) {
  return createWorkspaceTools({
    root: workspaceDir,
    ...(scope.options.allowCommands ? { allowCommands: scope.options.allowCommands } : {}),
  });
}

/** Tool names a run may ask for, known before any session exists (null: the factory decides). */
export function availableToolNames(scope: RunnerScope): string[] | null {
  if (scope.options.availableToolNames) return [...scope.options.availableToolNames];
  return scope.options.createTools ? null : [...workspaceTools(scope).names, ASK_USER_TOOL];
}

export function checkRequestedTools(scope: RunnerScope, names: string[], file: string | null): void {
  const available = availableToolNames(scope);
  if (available !== null && names.length > 0) checkToolNames(names, available, file);
}

/** The tools a session's run gets: the ones asked for by name, or every one when none are named. */
export function toolsFor(
  scope: RunnerScope,
  session: Session,
  names: string[],
  file: string | null,
  workspaceDir: string,
): ModeTool[] {
  const available = [
    ...(scope.options.createTools
      ? scope.options.createTools({ workspaceDir, session, names })
      : adaptWorkspaceTools(workspaceTools(scope, workspaceDir), { session, store: scope.engine.store })),
    askUserTool(),
  ];
  if (names.length === 0) return available;
  checkToolNames(
    names,
    available.map((tool) => tool.definition.name),
    file,
  );
  return available.filter((tool) => names.includes(tool.definition.name));
}
