// The one mode vocabulary of the command line: the runner's registered modes (plus `custom`,
// the mode of sessions a program runs itself, when listing). `--mode` on a run, `sessions
// list --mode` and `--list-sessions --mode` all accept these names, and the help lists them.
import { UsageError } from '@resume/core/spec';
import { builtinModes, type ModeFlag } from '@resume/runner/modes';

/** Older names still accepted (the source documents call the discussion "consensus"). */
const MODE_ALIASES: Readonly<Record<string, string>> = { consensus: 'discussion' };

/** Modes a session may record: the registered ones and `custom`. */
export function listableModes(): string[] {
  return [...builtinModes.names(), 'custom'];
}

/** `--mode` help for a run: every registered mode, the ones that run files marked as such. */
export function runModeHelp(): string {
  const described = builtinModes
    .list()
    .map((mode) => (mode.startsFrom.kind === 'file' ? `${mode.name} (conclave run <file>)` : mode.name));
  return `how the agents work: ${described.join(', ')} (default: discussion)`;
}

/**
 * The mode a `--mode` value names (an alias resolved). A run needs a registered mode; a
 * listing also accepts `custom` and any mode a stored session has (sessions written by a
 * program or an integration); anything else is a usage error naming the modes.
 */
export function parseModeName(value: string, options: { listing: boolean; stored?: readonly string[] }): string {
  const name = MODE_ALIASES[value] ?? value;
  const known = options.listing ? [...new Set([...listableModes(), ...(options.stored ?? [])])] : builtinModes.names();
  if (known.includes(name)) return name;
  throw new UsageError(`Unknown mode "${value}".`, { hint: `Modes: ${known.join(', ')}.` });
}

/** Whether a session of this mode runs from a file (resumed with `conclave run --resume`). */
export function startsFromFile(mode: string): boolean {
  return builtinModes.has(mode) && builtinModes.get(mode).startsFrom.kind === 'file';
}

/** The flags of the registered modes' start options, one per option (the first mode to declare it names it). */
export function modeFlags(): ModeFlag[] {
  const byOption = new Map<string, ModeFlag>();
  for (const mode of builtinModes.list()) {
    for (const flag of mode.commandLine ?? []) if (!byOption.has(flag.option)) byOption.set(flag.option, flag);
  }
  return [...byOption.values()];
}

/** The start options a registered mode takes on the command line. */
function optionNames(mode: string): string[] {
  return builtinModes.has(mode) ? (builtinModes.get(mode).commandLine ?? []).map((flag) => flag.option) : [];
}

/** Whether a registered mode reads this start option. */
export function modeTakes(mode: string, option: string): boolean {
  return optionNames(mode).includes(option);
}

/** Refuses a start option the chosen mode does not read, naming the modes that do. */
export function checkModeOption(mode: string, option: string, flag: string, hint: string): void {
  if (modeTakes(mode, option)) return;
  const readers = builtinModes.names().filter((name) => optionNames(name).includes(option));
  throw new UsageError(`${flag} applies to ${readers.join(', ')} mode; this is a ${mode} run.`, { hint });
}
