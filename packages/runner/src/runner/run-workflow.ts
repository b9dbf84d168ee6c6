// `runner.runWorkflow`: a run from a file, in the registered mode that recognises it (built
// in: `.prompt.md` files run in the prompt mode, other files are workflow specs for the
// chain mode). The mode journals the file's text at the start.
import path from 'node:path';
import { createSessionId } from '@resume/core';
import { UsageError } from '@resume/core/spec';
import {
  createWorktree,
  discardWorktree,
  WORKTREE_KEY,
  type WorktreeRecord,
  worktreeAsJson,
} from '../files/worktree.js';
import { hashText } from '../workflow/spec-hash.js';
import { drive } from './drive.js';
import { modeSetup } from './mode-setup.js';
import { inputFile, type RunnerScope, readInput } from './runner-scope.js';
import type { RunResult, WorkflowInput } from './runner-types.js';
import { createRunSession } from './session-setup.js';
import { announceMerge } from './worktree-run.js';

export async function runWorkflow(scope: RunnerScope, filePath: string, input: WorkflowInput = {}): Promise<RunResult> {
  const mode = scope.modes.forFile(filePath);
  if (!mode) {
    const fileModes = scope.modes.list().filter((candidate) => candidate.startsFrom.kind === 'file');
    throw new UsageError(`No registered mode runs ${filePath}.`, {
      hint: `Modes that run files: ${fileModes.map((candidate) => candidate.name).join(', ') || 'none'}.`,
    });
  }
  const text = await readInput(scope, filePath, inputFile(mode.spec?.kind));
  const planned = await mode.start(
    { from: 'file', filePath, text, variables: input.variables ?? {} },
    modeSetup(scope),
  );
  const create = (worktree: WorktreeRun | null) =>
    createRunSession(scope, {
      title: input.title ?? planned.title ?? path.basename(filePath),
      config: planned.config,
      record: worktree ? { ...input.record, [WORKTREE_KEY]: worktreeAsJson(worktree.record) } : input.record,
      specHash: hashText(text),
      initialEvents: planned.events,
      ...(input.id === undefined ? {} : { id: input.id }),
      ...(worktree ? { id: worktree.id, workspaceDir: worktree.record.workspace } : {}),
    });
  if (!(input.worktree ?? planned.worktree)) return drive(scope, await create(null), mode, planned.config, false);
  const worktree = await startWorktree(scope, input.id);
  const session = await create(worktree).catch(async (error: unknown) => {
    await discardWorktree(worktree.record);
    throw error;
  });
  const result = await drive(scope, session, mode, planned.config, false, worktree.record.workspace);
  announceMerge(scope, session.id, worktree.record, result);
  return result;
}

interface WorktreeRun {
  id: string;
  record: WorktreeRecord;
}

/** The worktree a new run works in, named after the session it is made for. */
async function startWorktree(scope: RunnerScope, chosenId: string | undefined): Promise<WorktreeRun> {
  const id = chosenId ?? createSessionId();
  const { record, uncommitted } = await createWorktree(scope.options.workspaceDir, id);
  scope.emit({
    type: 'notice',
    text: `Running in a new git worktree ${record.path} on branch ${record.branch} (from ${record.base.slice(0, 7)}).${uncommitted ? ` Uncommitted changes in ${record.repo} are not in it: commit them first to include them.` : ''}`,
  });
  return { id, record };
}
