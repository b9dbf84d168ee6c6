// Validate and goal_seek steps: loops whose every check, fix and attempt is a durable step of its
// own (keys `step[<id>]/check-N`, `/fix-N`, `/attempt-N`, `/score-N`), so a resume replays the
// loop from the journal and continues at the same attempt with the same missing list or the
// same previous score; no check, fixer or attempt runs twice.
import type { JsonValue } from '@resume/core/spec';
import { actionStep, type ScoredAction } from '../workflow/scored-steps.js';
import { renderTemplate, type StepResult, type TemplateScope } from '../workflow/template.js';
import type { WorkflowGoalSeekStep, WorkflowValidateStep } from '../workflow/workflow-spec.js';
import type { ChainOptions, LeafRunner, ShellOutput, StepPlace } from './chain-step.js';
import { shellOutputSchema } from './chain-step.js';
import { checkpoint, type ModeContext, setData } from './mode-context.js';
import { type ActionOutput, type Completion, parseCompletion, parseScore } from './scored-output.js';
import { ScoredStepFailedError } from './scored-step-failed-error.js';
import { runShellCommand } from './shell-command.js';
import { shellStepEnvironment } from './shell-environment.js';

/** Where a scored step's loop stands, for the resume plan (`data.scored`). */
export const SCORED_STEP_KEY = 'scored';

export interface ScoredStepInput {
  index: number;
  /** The step's stable id. */
  id: string;
  /** Its journal key prefix (`step[docs]`). */
  prefix: string;
  /** How checkpoint labels name it (`step docs`). */
  label: string;
  scope: TemplateScope;
  runLeaf: LeafRunner;
}

/** An environment value over this size is left out (Linux limits each variable to 128 KiB). */
const MAX_ENV_CHARS = 64 * 1024;
const SKIPPED: ShellOutput = { exitCode: null, stdoutTail: '', stderrTail: '', attempt: 0, skipped: true };
const shellCodec = {
  encode: (value: ShellOutput) => value as JsonValue,
  decode: (value: JsonValue) => shellOutputSchema.parse(value),
};

/** A check or a scorer: its output is read whatever its exit code, so a check may exit 1 while incomplete. */
async function runAction(
  context: ModeContext,
  options: ChainOptions,
  input: ScoredStepInput,
  action: ScoredAction,
  key: string,
  path: string,
  attempt: number,
  scope: TemplateScope,
  env: Record<string, string> = {},
): Promise<ActionOutput> {
  if (action.shell === undefined) {
    const place = placeOf(input, path, `${input.label}, ${key.slice(key.lastIndexOf('/') + 1)}`);
    const result = await input.runLeaf(quietProgress(context), options, place, key, actionStep(action), scope);
    return { text: result.response ?? '', exitCode: null, skipped: false };
  }
  const command = renderTemplate(action.shell, scope, { file: options.file, key: `${path}.shell` });
  const output = await context.session.step(
    `${key}/shell`,
    async (stepContext): Promise<ShellOutput> => {
      const result = await runShellCommand({
        command,
        cwd: context.workspaceDir,
        env: {
          ...shellStepEnvironment(context.env, action.env),
          ...env,
          CONCLAVE_SESSION_ID: context.session.id,
          CONCLAVE_STEP: input.id,
          CONCLAVE_ATTEMPT: String(attempt),
        },
        signal: stepContext.signal,
      });
      return { ...result, attempt: stepContext.attempt };
    },
    {
      safety: 'unsafe',
      codec: shellCodec,
      skipValue: SKIPPED,
      inserted: options.stepKeys === 'id',
      ...(context.onUncertain ? { onUncertain: context.onUncertain } : {}),
    },
  );
  return { text: output.stdoutTail, exitCode: output.exitCode, skipped: output.skipped === true };
}

/** The context a loop's steps run in: their own progress (a fixer's `attempt 1/1`) would read as the loop's. */
function quietProgress(context: ModeContext): ModeContext {
  return { ...context, emit: (event) => (event.type === 'progress' ? undefined : context.emit(event)) };
}

function placeOf(input: ScoredStepInput, path: string, label: string): StepPlace {
  return { index: input.index, number: String(input.index + 1), path, label, branch: null };
}

/** Whether `key` completed before this run (replayed now): what is shown of it was shown then. */
function recorded(context: ModeContext, key: string): boolean {
  return context.session.state.steps.some(
    (step) => (step.key === key || step.key.startsWith(`${key}/`)) && step.status === 'completed',
  );
}

const percent = (fraction: number) => `${Math.round(fraction * 100)}%`;

function describeCompletion(completion: Completion): string {
  if (completion.skipped) return 'not known (the check was skipped)';
  const missing = completion.missing.length > 0 ? `, missing ${completion.missing.join(', ')}` : '';
  return `${percent(completion.completion)} complete${missing}`;
}

/**
 * Runs the check until its completion reaches the threshold, with the fixer between checks. When
 * the checks run out the run fails; a resume after that checks again with a fresh set of checks
 * (a journaled `incomplete-N` marks each set that ran out).
 */
export async function runValidateStep(
  context: ModeContext,
  options: ChainOptions,
  step: WorkflowValidateStep,
  input: ScoredStepInput,
): Promise<StepResult> {
  const { validate } = step;
  const path = `steps[${input.index}].validate`;
  const max = validate.max_attempts;
  let firstOfSet = 1;
  let set = 1;
  for (let attempt = 1; ; attempt += 1) {
    const key = `${input.prefix}/check-${attempt}`;
    const fresh = !recorded(context, key);
    const output = await runAction(context, options, input, validate, key, path, attempt, input.scope);
    const completion = parseCompletion(output, input.id);
    const inSet = attempt - firstOfSet + 1;
    const detail = describeCompletion(completion);
    context.emit({ type: 'progress', label: 'check', done: inSet, total: max, detail });
    if (fresh) setData(context, SCORED_STEP_KEY, { step: input.index + 1, line: `check ${inSet}/${max}: ${detail}` });
    await checkpoint(context, `${input.label}, check ${attempt}: ${detail}`);
    if (!completion.skipped && completion.completion >= validate.threshold) {
      return { response: output.text };
    }
    if (inSet >= max) {
      let ranOutNow = false;
      await context.session.step(
        `${input.prefix}/incomplete-${set}`,
        async () => {
          ranOutNow = true;
          return attempt;
        },
        { inserted: options.stepKeys === 'id' },
      );
      if (ranOutNow) {
        throw new ScoredStepFailedError(
          `Step ${input.id} is ${completion.skipped ? 'of unknown completion' : `${percent(completion.completion)} complete`} after ${max} check${max === 1 ? '' : 's'}, below its threshold of ${percent(validate.threshold)}${completion.missing.length > 0 ? `; missing: ${completion.missing.join(', ')}` : ''}.`,
        );
      }
      // That set ran out in an earlier run: this resume gets a fresh set, starting with a check.
      set += 1;
      firstOfSet = attempt + 1;
      continue;
    }
    if (!validate.on_incomplete) continue;
    const scope: TemplateScope = {
      ...input.scope,
      validation: {
        completion: completion.skipped ? '' : String(completion.completion),
        missing: completion.missing.join(', '),
        output: output.text,
        attempt: String(attempt),
      },
    };
    const fixPath = `${path}.on_incomplete`;
    await input.runLeaf(
      quietProgress(context),
      options,
      placeOf(input, fixPath, `${input.label}, fix ${attempt}`),
      `${input.prefix}/fix-${attempt}`,
      validate.on_incomplete,
      scope,
    );
  }
}

/**
 * Runs the step and scores it, again with the previous score and output in its templates, until
 * the score reaches the threshold or the attempts run out; the best attempt's output is the
 * step's output either way (the run goes on, with a notice when the threshold was not reached).
 */
export async function runGoalSeekStep(
  context: ModeContext,
  options: ChainOptions,
  step: WorkflowGoalSeekStep,
  input: ScoredStepInput,
): Promise<StepResult & { agent: boolean }> {
  const goal = step.goal_seek;
  const path = `steps[${input.index}].goal_seek`;
  const max = goal.max_attempts;
  let best: { attempt: number; score: number; output: string } | null = null;
  let previous = { output: '', score: '' };
  for (let attempt = 1; attempt <= max; attempt += 1) {
    const attemptScope: TemplateScope = {
      ...input.scope,
      goal: { attempt: String(attempt), output: '', previous_output: previous.output, previous_score: previous.score },
    };
    const attemptKey = `${input.prefix}/attempt-${attempt}`;
    const result = await input.runLeaf(
      quietProgress(context),
      options,
      placeOf(input, path, `${input.label}, attempt ${attempt}`),
      attemptKey,
      actionStep(goal),
      attemptScope,
    );
    const output = result.response ?? '';
    const scoreKey = `${input.prefix}/score-${attempt}`;
    const fresh = !recorded(context, scoreKey);
    const scored = await runAction(
      context,
      options,
      input,
      goal.validate,
      scoreKey,
      `${path}.validate`,
      attempt,
      { ...attemptScope, goal: { ...(attemptScope.goal as NonNullable<TemplateScope['goal']>), output } },
      output.length <= MAX_ENV_CHARS ? { CONCLAVE_OUTPUT: output } : {},
    );
    const score = parseScore(scored, input.id, attempt);
    const reached = score !== null && score >= goal.threshold;
    const detail =
      score === null ? 'not scored (the scorer was skipped)' : `scored ${score}${reached ? ', threshold reached' : ''}`;
    context.emit({ type: 'progress', label: 'attempt', done: attempt, total: max, detail });
    if (fresh)
      setData(context, SCORED_STEP_KEY, { step: input.index + 1, line: `attempt ${attempt}/${max}: ${detail}` });
    await checkpoint(context, `${input.label}, attempt ${attempt}/${max}: ${detail}`);
    if (score !== null && (best === null || score > best.score)) best = { attempt, score, output };
    if (reached) break;
    previous = { output, score: score === null ? '' : String(score) };
  }
  if (best === null) {
    throw new ScoredStepFailedError(`Step ${input.id} has no scored attempt: every score was skipped.`);
  }
  if (best.score < goal.threshold) {
    context.emit({
      type: 'notice',
      text: `Step ${input.id}: best of ${max} attempts: ${best.score} (attempt ${best.attempt}), below the threshold of ${goal.threshold}; the run goes on with it.`,
    });
  }
  return { response: best.output, agent: goal.agent !== undefined };
}
