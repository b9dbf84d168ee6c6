// A task that looks like a mistyped command (`conclave sesions list`, `conclave keys init`)
// would start a paid discussion on the topic "sesions list". Such a task is asked about in a
// terminal ("Did you mean `conclave sessions list`? [y/N]") and refused without one (64);
// `conclave -- "sessions list"` and longer tasks run as topics.
import { UsageError } from '@resume/core/spec';

/** The program's commands, each with its subcommands (names and aliases). */
export type CommandNames = ReadonlyMap<string, readonly string[]>;

export interface MistypedTask {
  /** The task as typed. */
  task: string;
  /** The command it most likely meant (`conclave sessions list`), or null when none is close. */
  suggestion: string | null;
}

const COMMAND_WORD = /^[a-z][a-z0-9-]*$/;

/**
 * Whether a task looks like a command: one to three words starting with a word within two
 * edits of a command (one edit for commands of up to four letters, where two would match
 * everyday words like "the" for `tui`), or exactly two bare lowercase words given apart.
 */
export function mistypedCommand(words: readonly string[], commands: CommandNames): MistypedTask | null {
  const task = words.join(' ').trim();
  const tokens = task.split(/\s+/);
  if (tokens.length === 0 || tokens.length > 3) return null;
  const [first = '', ...rest] = tokens;
  const command = closest(first.toLowerCase(), [...commands.keys()]);
  if (command !== null) {
    const [second, ...others] = rest;
    const subcommands = commands.get(command) ?? [];
    const subcommand =
      second !== undefined && subcommands.length > 0 ? closest(second.toLowerCase(), subcommands) : null;
    const corrected = [command, ...(second === undefined ? [] : [subcommand ?? second]), ...others];
    return { task, suggestion: `conclave ${corrected.join(' ')}` };
  }
  if (words.length === 2 && words.every((word) => COMMAND_WORD.test(word))) return { task, suggestion: null };
  return null;
}

function closest(word: string, names: readonly string[]): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const name of names) {
    const distance = editDistance(word, name);
    const allowed = name.length <= 4 ? 1 : 2;
    if (distance <= allowed && (best === null || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}

/** Edits (insert, delete, replace, swap two neighbours) that turn one word into the other. */
function editDistance(from: string, to: string): number {
  const rows = Array.from({ length: from.length + 1 }, (_, row) =>
    Array.from({ length: to.length + 1 }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  const at = (row: number, column: number) => rows[row]?.[column] ?? Number.POSITIVE_INFINITY;
  for (let row = 1; row <= from.length; row++) {
    for (let column = 1; column <= to.length; column++) {
      const cost = from[row - 1] === to[column - 1] ? 0 : 1;
      let distance = Math.min(at(row - 1, column) + 1, at(row, column - 1) + 1, at(row - 1, column - 1) + cost);
      if (row > 1 && column > 1 && from[row - 1] === to[column - 2] && from[row - 2] === to[column - 1])
        distance = Math.min(distance, at(row - 2, column - 2) + 1);
      (rows[row] as number[])[column] = distance;
    }
  }
  return at(from.length, to.length);
}

/** The refusal without a terminal: what it looked like, and both ways on. */
export function mistypedCommandError(mistyped: MistypedTask, commands: CommandNames): UsageError {
  const asTopic = `To discuss it as a topic: conclave -- "${mistyped.task}"`;
  if (mistyped.suggestion !== null)
    return new UsageError(`"${mistyped.task}" looks like a mistyped command; no discussion was started.`, {
      hint: `Did you mean: ${mistyped.suggestion}\n${asTopic}`,
    });
  return new UsageError(`${noCommand(mistyped.task)}; "${mistyped.task}" was not started as a discussion.`, {
    hint: `Commands: ${[...commands.keys()].join(', ')} (see conclave --help)\n${asTopic}`,
  });
}

/** The word that names no command: the first, or the one after `help` (`conclave help <command>` is help). */
function noCommand(task: string): string {
  const [first = '', second = ''] = task.split(/\s+/);
  return first === 'help'
    ? `"${second}" is not a command for conclave help to explain`
    : `There is no command "${first}"`;
}

/** The question in a terminal, answered with y or n (Enter: no). */
export function mistypedCommandQuestion(mistyped: MistypedTask): string {
  return mistyped.suggestion !== null
    ? `Did you mean \`${mistyped.suggestion}\`? [y/N] `
    : `${noCommand(mistyped.task)}. Start a discussion on "${mistyped.task}"? [y/N] `;
}
