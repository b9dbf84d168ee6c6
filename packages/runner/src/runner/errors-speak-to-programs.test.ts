// The runner's errors are read by programs, like core's: a code, an exit code and data,
// with what a person can do next as data too (`nextStep`). The wording a person needs (which
// `conclave` command to run, which flag to pass) is the front ends' (apps/tui error-hints,
// shared with the CLI), so no message or hint the runner throws names a command or a flag.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConclaveError } from '@resume/core/spec';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { nextStepOf } from './next-step.js';
import { createRunner } from './runner.js';
import { createFakeModels, createTestStore } from './test-kit.js';

/** A front end's wording: a `conclave ...` command or a `--flag` (the product name "Conclave" is fine). */
const frontEndWording = /\bconclave\s|(^|[\s(])--[a-z]/;

const sourceRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** Every string and template text written in the arguments of a `new ...Error(...)` in `file`. */
function errorTexts(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const texts: string[] = [];
  const collect = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) texts.push(node.text);
    else if (ts.isTemplateExpression(node)) {
      texts.push([node.head.text, ...node.templateSpans.map((span) => `\${…}${span.literal.text}`)].join(''));
    }
    ts.forEachChild(node, collect);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && /Error$/.test(node.expression.getText(source))) {
      for (const argument of node.arguments ?? []) collect(argument);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return texts;
}

async function completedDiscussion() {
  const { engine } = createTestStore();
  const runner = createRunner({ engine: engine(), models: createFakeModels().resolve, workspaceDir: '/workspace' });
  const run = await runner.start({ mode: 'discussion', task: 'Pick a database', record: { provider: 'fake' } });
  return { runner, sessionId: run.sessionId };
}

/** The error `attempt` throws, checked to speak to programs. */
async function programError(attempt: () => Promise<unknown>): Promise<ConclaveError> {
  const error = await attempt().then(
    () => {
      throw new Error('expected the call to fail');
    },
    (caught: unknown) => caught,
  );
  if (!ConclaveError.isInstance(error)) throw error;
  expect(error.message).not.toMatch(frontEndWording);
  expect(error.hint ?? '').not.toMatch(frontEndWording);
  return error;
}

describe("the runner's errors speak to programs", () => {
  it('the wording check catches commands and flags', () => {
    expect(frontEndWording.test('Ask a follow-up instead: conclave --resume 01abc "your question"')).toBe(true);
    expect(frontEndWording.test('Keep the current file instead (--on-conflict keep).')).toBe(true);
    expect(frontEndWording.test('Session 01abc is already completed; there is nothing to resume.')).toBe(false);
  });

  it('no error the runner builds has a command or a flag in its message or hint', () => {
    const files = sourceFiles(sourceRoot);
    expect(files.length).toBeGreaterThan(50);
    const worded = files.flatMap((file) =>
      errorTexts(file)
        .filter((text) => frontEndWording.test(text))
        .map((text) => `${path.relative(sourceRoot, file)}: ${text}`),
    );
    expect(worded).toEqual([]);
  });

  it('resuming a completed session: a usage error whose next step is a follow-up, as data', async () => {
    const { runner, sessionId } = await completedDiscussion();
    const error = await programError(() => runner.resume(sessionId));
    expect(error).toMatchObject({ code: 'usage' });
    expect(nextStepOf(error)).toEqual({ kind: 'ask-follow-up', sessionId });
  });

  it('a checkpoint the session does not have, a start chunk it has no chunks for, empty input', async () => {
    const { runner, sessionId } = await completedDiscussion();
    const noCheckpoint = await programError(() => runner.plan(sessionId, { fromCheckpoint: 'nope' }));
    expect(nextStepOf(noCheckpoint)).toEqual({ kind: 'list-checkpoints', sessionId });
    const noBranchPoint = await programError(() => runner.branch(sessionId, { at: 'nope' }));
    expect(nextStepOf(noBranchPoint)).toEqual({ kind: 'list-checkpoints', sessionId });
    const startChunk = await programError(() => runner.plan(sessionId, { startChunk: 2 }));
    expect(startChunk.message).toBe(
      `A start chunk applies to iterative sessions; session ${sessionId} is a discussion session.`,
    );
    expect(nextStepOf(startChunk)).toEqual({ kind: 'resume-without-start-chunk', sessionId });
    const emptyTask = await programError(() => runner.start({ mode: 'discussion', task: ' ' }));
    expect(nextStepOf(emptyTask)).toEqual({ kind: 'give-a-task' });
    const emptyFollowUp = await programError(() => runner.continue(sessionId, ' '));
    expect(nextStepOf(emptyFollowUp)).toEqual({ kind: 'give-a-follow-up' });
    const noProject = await programError(() => runner.start({ mode: 'iterative', task: 'Review it' }));
    expect(nextStepOf(noProject)).toEqual({ kind: 'give-a-project-file' });
  });
});
