// Runs one invocation of the CLI and returns its exit code. The only place errors
// become exit codes (docs/architecture.md#the-cli); commander's own usage errors become 64.

import { printableText } from '@resume/core/spec';
import { CommanderError } from 'commander';
import type { CliEnvironment } from './context/cli-context.js';
import { createTerminal } from './output/terminal.js';
import { buildProgram } from './program/build-program.js';

/** Exit codes (the full map is ExitCode in @resume/core/spec; docs/cli.md#exit-codes). */
const SUCCESS = 0;
const USAGE = 64;

export async function runCli(argv: readonly string[], environment: CliEnvironment): Promise<number> {
  let exitCode = SUCCESS;
  const debug = argv.includes('--debug');
  const program = buildProgram(environment, {
    argv,
    rerun: (corrected) => runCli(corrected, environment),
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
          scrub: createKnownSecretScrubber({ env: { ...environment.env } }),
        });
      }
    },
  });
  program.exitOverride();
  program.configureOutput(commanderOutput(environment));
  for (const command of program.commands) applyOverrides(command, environment);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      )
        return SUCCESS;
      return USAGE;
    }
    throw error;
  }
  return exitCode;
}

/** exitOverride and output settings are not inherited by commands added before they were set. */
function applyOverrides(command: import('commander').Command, environment: CliEnvironment) {
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
