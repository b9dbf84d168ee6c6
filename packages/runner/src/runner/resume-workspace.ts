// Where an in-place resume runs: the recorded workspace, or the one `--workspace` names.
import { statSync } from 'node:fs';
import path from 'node:path';
import type { SessionState } from '@resume/core';
import { compareWorkspaceDirectory } from '../files/git-state.js';
import type { RunnerScope } from './runner-scope.js';

export function isDirectory(directory: string): boolean {
  try {
    return statSync(directory).isDirectory();
  } catch {
    return false;
  }
}

export function resumeWorkspace(scope: RunnerScope, state: SessionState, chosen: string | undefined) {
  const { workspaceDir } = scope.options;
  return compareWorkspaceDirectory(state.header.workspaceDir, workspaceDir, {
    chosen: chosen === undefined ? null : path.resolve(workspaceDir, chosen),
    exists: isDirectory,
  });
}
