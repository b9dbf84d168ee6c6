// `runner.runWorkflow`: a run from a file, in the registered mode that recognises it (built
// in: `.prompt.md` files run in the prompt mode, other files are workflow specs for the
// chain mode). The mode journals the file's text at the start.
import path from 'node:path';
import { UsageError } from '@resume/core/spec';
import { hashText } from '../workflow/spec-hash.js';
import { drive } from './drive.js';
import { modeSetup } from './mode-setup.js';
import { inputFile, type RunnerScope, readInput } from './runner-scope.js';
import type { RunResult, WorkflowInput } from './runner-types.js';
import { createRunSession } from './session-setup.js';

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
  const session = await createRunSession(scope, {
    title: input.title ?? planned.title ?? path.basename(filePath),
    config: planned.config,
    record: input.record,
    specHash: hashText(text),
    initialEvents: planned.events,
  });
  return drive(scope, session, mode, planned.config, false);
}
