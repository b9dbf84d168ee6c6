// Which spec a resumed workflow or prompt file runs, and how it differs from the file now.
// The rule: a resume runs the spec recorded when the session started; the edited file runs
// only when asked (`--use-edited-spec`), after the compatibility check. The plan shows the
// diff either way, so what runs is never a surprise.
import { createTwoFilesPatch } from 'diff';
import { normalizeSpecText } from './spec-text.js';

export interface SpecChange {
  /** The spec file as recorded (relative to the workspace when it was given so). */
  path: string;
  /** The file on disk differs from the recorded spec (whitespace-only edits do not count). */
  changed: boolean;
  /** The file is gone: the recorded spec is all there is. */
  missing: boolean;
  /** Which version the resume runs. */
  runs: 'recorded' | 'edited';
  /** A unified diff from the recorded spec to the file now, when it changed. */
  diff: string | null;
}

export function describeSpecChange(input: {
  path: string;
  recorded: string | null;
  current: string | null;
  useEdited: boolean;
}): SpecChange {
  const missing = input.current === null;
  const changed =
    input.current !== null &&
    input.recorded !== null &&
    normalizeSpecText(input.current) !== normalizeSpecText(input.recorded);
  return {
    path: input.path,
    changed,
    missing,
    runs: changed && input.useEdited ? 'edited' : 'recorded',
    diff:
      changed && input.recorded !== null && input.current !== null
        ? createTwoFilesPatch(`recorded/${input.path}`, `edited/${input.path}`, input.recorded, input.current, '', '', {
            context: 2,
          })
            .split('\n')
            // The "Index:" and "====" header lines say nothing the two file names do not.
            .filter((line, index) => index > 1 || !(line.startsWith('Index:') || line.startsWith('====')))
            .join('\n')
            .trimEnd()
        : null,
  };
}

/** One line for the plan and notices: which spec runs and why. */
export function describeSpecRule(change: SpecChange): string {
  if (change.missing) return `${change.path} is no longer there; the recorded spec runs`;
  if (!change.changed) return `${change.path} is unchanged`;
  return change.runs === 'edited'
    ? `${change.path} changed since the session started; the edited version runs (--use-edited-spec)`
    : `${change.path} changed since the session started; the recorded version runs (add --use-edited-spec to run the edited one)`;
}
