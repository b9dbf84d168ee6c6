// The functions the CLI calls (lazily imported). Each mounts one screen in a terminal
// and resolves with the user's answer; without a terminal it asks one plain line, and
// at end of input it answers with the choice that changes nothing.
import type { UncertainStepInfo } from '@resume/core/spec';
import { UsageError } from '@resume/core/spec';
import type { TuiBackend } from '../backend/tui-backend.js';
import type { ConflictChoice, ConflictFile } from '../conflicts/conflict-reducer.js';
import {
  conflictSummary,
  createdSinceWarning,
  initialConflictState,
  statusLabel,
} from '../conflicts/conflict-reducer.js';
import { ConflictScreen } from '../conflicts/conflict-screen.js';
import type { ConflictAnswer, DiffSource } from '../conflicts/use-conflict-screen.js';
import { type PickedSession, SessionPicker } from '../picker/index.js';
import { type ResumePromptPlan, resumePlanLines } from '../plan/resume-prompt-plan.js';
import { AnswerPrompt, type AnswerPromptInfo, type SubmitAnswer } from '../prompts/answer-prompt.js';
import { childrenNotice, type DeleteInfo, DeletePrompt } from '../prompts/delete-prompt.js';
import { type FollowUpInfo, FollowUpPrompt } from '../prompts/follow-up-prompt.js';
import {
  type ModelUnavailableAnswer,
  type ModelUnavailableInfo,
  ModelUnavailablePrompt,
  modelChoices,
} from '../prompts/model-unavailable-prompt.js';
import { ResumePrompt } from '../prompts/resume-prompt.js';
import { type UncertainStepAnswer, UncertainStepPrompt } from '../prompts/uncertain-step-prompt.js';
import {
  type UnfinishedContinueAnswer,
  type UnfinishedContinueInfo,
  UnfinishedContinuePrompt,
  unfinishedContinueChoices,
} from '../prompts/unfinished-continue-prompt.js';
import { askLine, writePlain } from '../render/plain-prompt.js';
import { runScreen } from '../render/run-screen.js';
import { resolveScreenIo, type ScreenIo } from '../render/screen-io.js';

export interface PickSessionOptions extends ScreenIo {
  /** The heading, e.g. "Resume which session?". */
  heading?: string;
  /** Off: `d` does not delete (default on). */
  allowDelete?: boolean;
  /** The directory it is opened from: the list starts on its sessions, `w` switches to all. */
  workspaceDir?: string;
}

/**
 * The session picker. Resolves with the chosen session and what to do with it (Enter:
 * resume if unfinished, continue if completed; `c`: continue), or null when the user left.
 */
export async function pickSession(
  backend: TuiBackend,
  options: PickSessionOptions = {},
): Promise<PickedSession | null> {
  const io = resolveScreenIo(options);
  if (!io.interactive) {
    throw new UsageError('The session picker needs a terminal.', {
      hint: 'Pass a session id (or its index from `conclave sessions list`).',
    });
  }
  return runScreen<PickedSession | null>(
    io,
    (done) => (
      <SessionPicker
        backend={backend}
        onDone={done}
        {...(options.heading === undefined ? {} : { heading: options.heading })}
        allowDelete={options.allowDelete ?? true}
        {...(options.workspaceDir === undefined ? {} : { workspaceDir: options.workspaceDir })}
      />
    ),
    null,
    { clearOnExit: true },
  );
}

/** "Resume from chunk 8 of 15? [Y/n]" with the plan above it. */
export async function confirmResume(plan: ResumePromptPlan, options: ScreenIo = {}): Promise<boolean> {
  const io = resolveScreenIo(options);
  if (!io.interactive) {
    const lines = resumePlanLines(plan).map((line) => `${line.kind === 'warning' ? '!' : '•'} ${line.text}\n`);
    writePlain(io.stdout, lines.join(''));
    const answer = await askLine(io.stdin, io.stdout, `${plan.question} [Y/n] `);
    if (answer === null) return false;
    return answer === '' || /^y(es)?$/i.test(answer);
  }
  return runScreen<boolean>(io, (done) => <ResumePrompt plan={plan} onAnswer={done} />, false);
}

/**
 * The conflict screen: per changed file keep (default) or restore; `'cancel'` cancels the
 * resume. Unchanged files are folded away and never get a choice.
 */
export async function resolveConflictsInteractively(
  changes: readonly ConflictFile[],
  diffs: DiffSource,
  options: ScreenIo = {},
): Promise<{ choices: Record<string, ConflictChoice> } | 'cancel'> {
  const io = resolveScreenIo(options);
  if (!io.interactive) {
    const state = initialConflictState(changes);
    for (const file of state.files) writePlain(io.stdout, `  ✗ ${file.path} (${statusLabel(file.status)})\n`);
    const warning = createdSinceWarning(state.files);
    if (warning) writePlain(io.stdout, `${warning}\n`);
    const answer = await askLine(
      io.stdin,
      io.stdout,
      'keep current files, restore the snapshot, or cancel? [k/r/c] (k) ',
    );
    if (answer === null || /^c/i.test(answer)) return 'cancel';
    const choice: ConflictChoice = /^r/i.test(answer) ? 'restore' : 'keep';
    const choices = Object.fromEntries(state.files.map((file) => [file.path, choice]));
    writePlain(io.stdout, `${conflictSummary({ ...state, choices })}\n`);
    return { choices };
  }
  return runScreen<ConflictAnswer>(
    io,
    (done) => <ConflictScreen changes={changes} diffs={diffs} onAnswer={done} />,
    'cancel',
  );
}

/** Re-run, skip or abort an unsafe step that started and never finished. */
export async function askUncertainStep(info: UncertainStepInfo, options: ScreenIo = {}): Promise<UncertainStepAnswer> {
  const io = resolveScreenIo(options);
  if (!io.interactive) {
    writePlain(
      io.stdout,
      `Step "${info.key}" (attempt ${info.attempt}) started and never finished; it has side effects.\n`,
    );
    const answer = await askLine(io.stdin, io.stdout, 're-run, skip or abort? [r/s/a] (a) ');
    if (answer !== null && /^r/i.test(answer)) return 'rerun';
    if (answer !== null && /^s/i.test(answer)) return 'skip';
    return 'abort';
  }
  return runScreen<UncertainStepAnswer>(io, (done) => <UncertainStepPrompt info={info} onAnswer={done} />, 'abort');
}

/** Same model, another model, or cancel, when a recorded model is not available. */
export async function askModelUnavailable(
  info: ModelUnavailableInfo,
  options: ScreenIo = {},
): Promise<ModelUnavailableAnswer> {
  const io = resolveScreenIo(options);
  if (!io.interactive) {
    const choices = modelChoices(info);
    writePlain(io.stdout, `Model '${info.model}' is not available.\n`);
    for (const choice of choices) writePlain(io.stdout, `  [${choice.shortcut}] ${choice.label}\n`);
    const answer = await askLine(io.stdin, io.stdout, 'Choice (c): ');
    const picked = choices.find((choice) => choice.shortcut === answer?.toLowerCase());
    return picked?.value ?? { choice: 'cancel' };
  }
  return runScreen<ModelUnavailableAnswer>(io, (done) => <ModelUnavailablePrompt info={info} onAnswer={done} />, {
    choice: 'cancel',
  });
}

/**
 * The follow-up question for continuing a session, typed in an Ink text box; null when
 * the user left (Esc, Ctrl+C) or, without a terminal, gave no line.
 */
export async function askFollowUp(info: FollowUpInfo, options: ScreenIo = {}): Promise<string | null> {
  const io = resolveScreenIo(options);
  if (!io.interactive) {
    const answer = await askLine(io.stdin, io.stdout, `Follow-up question for "${info.title}": `);
    return answer ? answer : null;
  }
  return runScreen<string | null>(io, (done) => <FollowUpPrompt info={info} onAnswer={done} />, null);
}

/**
 * A waiting session's question, answered in a text box: `submit` journals the typed answer
 * (an answer that does not fit is refused inline and the box stays open). Resolves with the
 * answer journaled, or null when the user left (Esc, Ctrl+C). Without a terminal one line is
 * read: nothing (end of input) or an answer that does not fit gives null, with the problem said.
 */
export async function askAnswer(
  info: AnswerPromptInfo,
  submit: SubmitAnswer,
  options: ScreenIo = {},
): Promise<string | null> {
  const io = resolveScreenIo(options);
  if (!io.interactive) {
    const { question } = info;
    writePlain(io.stdout, `? ${question.prompt}\n`);
    if (question.hint) writePlain(io.stdout, `  Expected: ${question.hint}\n`);
    const answer = (await askLine(io.stdin, io.stdout, '> '))?.trim() ?? '';
    if (answer === '') return null;
    const outcome = await submit(answer);
    if (outcome.accepted) return answer;
    writePlain(io.stdout, `✗ ${outcome.problem}\n`);
    return null;
  }
  return runScreen<string | null>(io, (done) => <AnswerPrompt info={info} submit={submit} onDone={done} />, null);
}

/** A follow-up for a session that never finished: resume it first, ask anyway, or cancel. */
export async function askUnfinishedContinue(
  info: UnfinishedContinueInfo,
  options: ScreenIo = {},
): Promise<UnfinishedContinueAnswer> {
  const io = resolveScreenIo(options);
  if (!io.interactive) {
    writePlain(io.stdout, `Session ${info.sessionId} "${info.title}" is ${info.status}: it has no conclusion yet.\n`);
    for (const choice of unfinishedContinueChoices()) writePlain(io.stdout, `  [${choice.shortcut}] ${choice.label}\n`);
    const answer = await askLine(io.stdin, io.stdout, 'Choice (q): ');
    const picked = unfinishedContinueChoices().find((choice) => choice.shortcut === answer?.toLowerCase());
    return picked?.value ?? 'cancel';
  }
  return runScreen<UnfinishedContinueAnswer>(
    io,
    (done) => <UnfinishedContinuePrompt info={info} onAnswer={done} />,
    'cancel',
  );
}

/** "Delete …? [y/N]" before a session is deleted; no unless the user says yes. */
export async function confirmDelete(info: DeleteInfo, options: ScreenIo = {}): Promise<boolean> {
  const io = resolveScreenIo(options);
  if (!io.interactive) {
    writePlain(io.stdout, `Session ${info.sessionId} "${info.title}" (${info.details})\n`);
    if (info.children.length > 0) writePlain(io.stdout, `${childrenNotice(info.children.length, info.toTrash)}:\n`);
    for (const child of info.children) writePlain(io.stdout, `  ${child}\n`);
    const answer = await askLine(
      io.stdin,
      io.stdout,
      info.toTrash ? 'Move it to the trash? [y/N] ' : 'Delete it for good? [y/N] ',
    );
    return answer !== null && /^y(es)?$/i.test(answer);
  }
  return runScreen<boolean>(io, (done) => <DeletePrompt info={info} onAnswer={done} />, false);
}
