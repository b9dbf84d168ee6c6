// Reading the number a validate step's check or a goal_seek step's scorer prints: a completion
// (`{ "completion": 0.8, "missing": [...] }`) or a score (`85`, `score: 85`, `{ "score": 85 }`).
// Output that holds none fails the step with what was printed and the format expected.
import { z } from 'zod';
import { ScoredStepFailedError } from './scored-step-failed-error.js';

export interface ActionOutput {
  text: string;
  /** A shell check's exit code (null: an agent, or skipped). */
  exitCode: number | null;
  /** The check's run was uncertain after a crash and the resume chose to skip it. */
  skipped: boolean;
}

export interface Completion {
  completion: number;
  missing: string[];
  skipped: boolean;
}

const COMPLETION_FORMAT = '{ "completion": 0.8, "missing": [...] }';
const SCORE_FORMAT = 'a number (85), "score: 85" or { "score": 85 }';

/** JSON values in the text: the whole of it, else each line from the last, else its outermost braces. */
function jsonCandidates(text: string): unknown[] {
  const trimmed = text.trim();
  const lines = trimmed
    .split('\n')
    .map((line) => line.trim())
    .reverse();
  const braces = trimmed.slice(trimmed.indexOf('{'), trimmed.lastIndexOf('}') + 1);
  const values: unknown[] = [];
  for (const candidate of [trimmed, ...lines, braces]) {
    if (candidate === '') continue;
    try {
      values.push(JSON.parse(candidate));
    } catch {
      // Not JSON: the next candidate.
    }
  }
  return values;
}

const completionSchema = z.object({
  completion: z.number().min(0).max(1),
  missing: z.array(z.unknown()).default([]),
});

function printed(output: ActionOutput): string {
  const text = output.text.trim();
  const shown = text === '' ? '(nothing)' : text.length > 600 ? `…${text.slice(-600)}` : text;
  return `${output.exitCode !== null ? ` (it exited with code ${output.exitCode})` : ''}:\n${shown}`;
}

/** The completion a check printed; a check that was skipped counts as incomplete with nothing known. */
export function parseCompletion(output: ActionOutput, stepId: string): Completion {
  if (output.skipped) return { completion: 0, missing: [], skipped: true };
  for (const value of jsonCandidates(output.text)) {
    const parsed = completionSchema.safeParse(value);
    if (!parsed.success) continue;
    const missing = parsed.data.missing.map((entry) => (typeof entry === 'string' ? entry : JSON.stringify(entry)));
    return { completion: parsed.data.completion, missing, skipped: false };
  }
  const percentLike = jsonCandidates(output.text).some(
    (value) =>
      typeof value === 'object' && value !== null && typeof (value as { completion?: unknown }).completion === 'number',
  );
  throw new ScoredStepFailedError(
    `The check of step ${stepId} printed no completion${printed(output)}\nA check prints ${COMPLETION_FORMAT}${percentLike ? ', completion a fraction from 0 to 1 (80% is 0.8)' : ''}, as JSON on its last line.`,
  );
}

/** The score a scorer printed (null: it was skipped). */
export function parseScore(output: ActionOutput, stepId: string, attempt: number): number | null {
  if (output.skipped) return null;
  for (const value of jsonCandidates(output.text)) {
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    const score = (value as { score?: unknown } | null)?.score;
    if (typeof value === 'object' && typeof score === 'number' && Number.isFinite(score)) return score;
  }
  const labelled = /score\s*[:=]\s*(-?\d+(?:\.\d+)?)/i.exec(output.text);
  if (labelled) return Number(labelled[1]);
  throw new ScoredStepFailedError(
    `The validate of step ${stepId} printed no score for attempt ${attempt}${printed(output)}\nA scorer prints ${SCORE_FORMAT}.`,
  );
}
