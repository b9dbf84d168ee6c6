// The root command's flags that contradict each other or mean nothing together, refused
// (exit 64) before any session is read or any model is called. One rule per combination,
// in the order `docs/cli.md#flags-that-do-not-go-together` lists them.
import { UsageError } from '@resume/core/spec';

/** The root command's raw options and task, as commander gave them. */
export interface GivenFlags {
  options: Record<string, unknown>;
  task: string;
}

interface CombinationRule {
  refused(given: Given): boolean;
  /** Why it means nothing (the error message). */
  problem: string;
  /** The command to type instead (the hint). */
  instead: string;
}

interface Given {
  options: Record<string, unknown>;
  task: string;
  has(option: string): boolean;
  /** A follow-up question is given: `--continue "q"`, or `--resume <id> "q"`. */
  followUp: boolean;
  /** A resume in place: `--resume` without a follow-up question. */
  resumeInPlace: boolean;
}

const RULES: readonly CombinationRule[] = [
  {
    refused: (given) => given.has('continue') && given.has('resume'),
    problem: '--continue and --resume both say which session to go on with.',
    instead: 'conclave --resume <id> "question"   (a follow-up to that session)',
  },
  {
    refused: (given) => given.has('branchFrom') && (given.has('continue') || given.has('resume')),
    problem: '--branch-from starts a new session from a checkpoint; it cannot also continue or resume one.',
    instead: 'conclave --branch-from <id> --at-round N "question"',
  },
  {
    refused: (given) => typeof given.options.continue === 'string' && given.task.length > 0,
    problem: '--continue was given a follow-up question twice.',
    instead: 'conclave --continue "the whole question, quoted"',
  },
  {
    refused: (given) => given.has('atRound') && !given.has('branchFrom'),
    problem: '--at-round says where --branch-from branches; alone it names no session.',
    instead: 'conclave --branch-from <id> --at-round N "question"',
  },
  {
    refused: (given) => given.has('atRound') && given.has('fromCheckpoint'),
    problem: '--at-round and --from-checkpoint both say where to branch.',
    instead: 'conclave --branch-from <id> --at-round N "question"   (or --from-checkpoint <seq|label> alone)',
  },
  {
    refused: (given) => given.has('fromCheckpoint') && !given.has('resume') && !given.has('branchFrom'),
    problem: '--from-checkpoint needs the session it names a checkpoint of.',
    instead: 'conclave --resume <id> --from-checkpoint <seq|label>',
  },
  {
    refused: (given) => given.has('fromCheckpoint') && given.has('resume') && given.followUp,
    problem: 'A follow-up goes on from the end of a session, not from --from-checkpoint.',
    instead: 'conclave --branch-from <id> --from-checkpoint <seq|label> "question"',
  },
  {
    refused: (given) => given.has('startChunk') && (given.followUp || given.has('branchFrom')),
    problem:
      '--start-chunk applies to an iterative session resumed in place; a follow-up or a branch starts a new session.',
    instead: 'conclave --resume <id> --start-chunk N',
  },
  {
    refused: (given) => given.has('dryRun') && !given.resumeInPlace,
    problem: '--dry-run prints the plan of a resume; a new run, a follow-up or a branch has none.',
    instead: 'conclave --resume <id> --dry-run',
  },
  {
    refused: (given) => given.has('mode') && (given.has('resume') || given.has('continue') || given.has('branchFrom')),
    problem: '--mode chooses how a new run works; a resumed, continued or branched session keeps its own mode.',
    instead: 'conclave --mode <mode> "task"   (a new run)',
  },
  {
    refused: (given) =>
      given.has('project') && (given.has('resume') || given.has('continue') || given.has('branchFrom')),
    problem: '--project gives a new iterative run its file; a resumed, continued or branched session keeps its own.',
    instead: 'conclave --mode iterative --project <file> "task"   (a new run)',
  },
  {
    refused: (given) => given.has('resetDiscussion') && !given.followUp,
    problem: '--reset-discussion applies to a follow-up question.',
    instead: 'conclave --resume <id> --reset-discussion "question"',
  },
  {
    refused: (given) => (given.has('workspace') || given.has('useEditedSpec')) && !given.resumeInPlace,
    problem: '--workspace and --use-edited-spec apply to a resume in place.',
    instead: 'conclave --resume <id> --workspace <dir>',
  },
  {
    refused: (given) => given.has('title') && given.resumeInPlace,
    problem: '--title names a new session; a resume goes on in the same one.',
    instead: 'conclave --resume <id> --title "title" "question"   (a follow-up, a new session)',
  },
  {
    refused: (given) => given.has('status') || given.has('limit') || given.has('olderThan'),
    problem: '--status, --limit and --older-than filter a listing or a cleanup, not a run.',
    instead: 'conclave sessions list --status interrupted   (or: conclave sessions cleanup --older-than 30d)',
  },
];

/** Refuses (64) the first combination of flags that contradicts itself or means nothing. */
export function checkFlagCombinations({ options, task }: GivenFlags): void {
  const has = (option: string) => options[option] !== undefined && options[option] !== false;
  const resumeInPlace = has('resume') && !has('continue') && !has('branchFrom') && task.length === 0;
  const given: Given = {
    options,
    task,
    has,
    followUp: (has('continue') || has('resume')) && !has('branchFrom') && !resumeInPlace,
    resumeInPlace,
  };
  const rule = RULES.find((each) => each.refused(given));
  if (!rule) return;
  // The hint names the session the user gave, so it can be run as printed.
  const named = [options.resume, options.branchFrom].find((value) => typeof value === 'string');
  const instead = typeof named === 'string' ? rule.instead.replaceAll('<id>', named) : rule.instead;
  throw new UsageError(rule.problem, { hint: `Instead: ${instead}` });
}
