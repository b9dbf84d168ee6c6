// Runs one invocation of the CLI and returns its exit code. The only place errors
// become exit codes (docs/architecture.md#the-cli); commander's own usage errors become 64.

import { printableText } from '@resume/core/spec';
import { type Command, CommanderError } from 'commander';
import type { CliEnvironment } from './context/cli-context.js';
import { createTerminal } from './output/terminal.js';
import { buildProgram } from './program/build-program.js';

/** Exit codes (the full map is ExitCode in @resume/runner/exit-codes, not imported here: start-up stays small). */
const SUCCESS = 0;
const USAGE = 64;

export async function runCli(argv: readonly string[], environment: CliEnvironment): Promise<number> {
  let exitCode = SUCCESS;
  const debug = argv.includes('--debug');
  // Every command that prints JSON takes --json; after `--` it is an argument, not the flag.
  const separator = argv.indexOf('--');
  const json = (separator === -1 ? argv : argv.slice(0, separator)).includes('--json');
  const program = buildProgram(environment, {
    argv,
    rerun: (corrected) => runCli(corrected, environment),
    runIn: runCli,
    async run(_command, work) {
      try {
        exitCode = await work();
      } catch (error) {
        const terminal = createTerminal(environment.streams, {
          color: argv.includes('--no-color') ? false : undefined,
          quiet: false,
          env: environment.env,
        });
        const [{ reportError }, { createKnownSecretScrubber }] = await Promise.all([
          import('./errors/report-error.js'),
          import('@resume/core/engine'),
        ]);
        exitCode = reportError(error, terminal, {
          debug,
          json,
          scrub: createKnownSecretScrubber({ env: { ...environment.env } }),
        });
      }
    },
  });
  program.exitOverride();
  program.configureOutput(commanderOutput(environment));
  for (const command of program.commands) applyOverrides(command, environment);
  try {
    await program.parseAsync(helpAsAsked(program, argv), { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      )
        return SUCCESS;
      if (json) {
        // Commander printed the problem on stderr; scripts read it on stdout too.
        const { errorJson } = await import('./errors/report-error.js');
        const message = printableText(error.message.replace(/^error: /, ''), 'line');
        const hint = 'See the command and its options with --help.';
        environment.streams.stdout.write(`${errorJson({ code: 'usage', message, exitCode: USAGE, hint })}\n`);
      }
      return USAGE;
    }
    throw error;
  }
  return exitCode;
}

/**
 * The command line as commander should read it for the help it asks for.
 * - `conclave help sessions list` is `conclave sessions list --help`, and `conclave help` the
 *   program's: `help` followed by nothing, or by one or two words the first of which names a
 *   command (`conclave help me plan the offsite` is a task; after `--` every word is).
 * - Commander answers `conclave sessions prune --help` (and `conclave sessions help prune`) with
 *   the help of `sessions`, exit 0, as if `prune` were one of its commands; without the help it
 *   says the command is unknown and names the nearest ones (64). A group of commands (`sessions`,
 *   `keys`: commands, no arguments of its own) given a name none of its commands has is therefore
 *   parsed without the help flag and without its `help`.
 * - Commander shows a group given no command (`conclave sessions`) its help on stderr, as an
 *   error; it is the help asked for, on stdout, as `conclave sessions --help` shows it.
 */
function helpAsAsked(program: Command, argv: readonly string[]): string[] {
  const end = argv.includes('--') ? argv.indexOf('--') : argv.length;
  const named = (command: Command, word: string) =>
    command.commands.find((child) => child.name() === word || child.aliases().includes(word));
  let command = program;
  let helpAt = -1;
  for (let index = 0; index < end; index += 1) {
    const word = argv[index] ?? '';
    if (word.startsWith('-')) {
      // An option's value is not a command name: `conclave --home ~/h sessions prune --help`.
      if (command.options.some((option) => option.required && (option.long === word || option.short === word)))
        index += 1;
      continue;
    }
    if (command === program && word === 'help' && end === argv.length) {
      const next = argv.slice(index + 1).findIndex((after) => after.startsWith('-'));
      const asked = argv.slice(index + 1, next === -1 ? undefined : index + 1 + next);
      if (asked.length > 2 || (asked[0] !== undefined && !named(program, asked[0]))) break;
      return helpAsAsked(program, [...argv.slice(0, index), ...argv.slice(index + 1), '--help']);
    }
    const group = isGroup(command);
    if (group && word === 'help' && helpAt === -1) {
      helpAt = index;
      continue;
    }
    const child = named(command, word);
    if (child && helpAt === -1) command = child;
    else if (child || !group) break;
    else return argv.filter((flag, at) => at >= end || (at !== helpAt && flag !== '--help' && flag !== '-h'));
  }
  // A group given nothing after it (`conclave sessions`, `conclave sessions --`) shows its help, as with --help.
  const given = end === argv.length - 1 ? argv.slice(0, end) : argv;
  const last = given.at(-1) ?? '';
  if (helpAt === -1 && isGroup(command) && command.parent && named(command.parent, last) === command)
    return [...given, '--help'];
  return [...argv];
}

/** A group of commands: commands, and no arguments of its own (`sessions`, `keys`). */
const isGroup = (command: Command): boolean => command.commands.length > 0 && command.registeredArguments.length === 0;

/** exitOverride and output settings are not inherited by commands added before they were set. */
function applyOverrides(command: Command, environment: CliEnvironment) {
  command.exitOverride();
  command.configureOutput(commanderOutput(environment));
  for (const child of command.commands) applyOverrides(child, environment);
}

/** Commander's help and usage errors, which quote what was typed: controls shown, not acting (printableText). */
function commanderOutput(environment: CliEnvironment) {
  return {
    writeOut: (text: string) => environment.streams.stdout.write(printableText(text, 'lines')),
    writeErr: (text: string) => environment.streams.stderr.write(printableText(text, 'lines')),
  };
}
