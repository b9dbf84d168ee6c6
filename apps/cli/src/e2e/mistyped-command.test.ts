// End-to-end: a task that looks like a mistyped command never starts a paid discussion
// without a terminal to ask; `--` and longer tasks still run as topics.
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

describe('conclave: a task that looks like a mistyped command', () => {
  const sandbox = sandboxFixture('all');

  const sessionCount = async () => (await sandbox.json<unknown[]>(['sessions', 'list'])).length;

  it('refuses a command one typo away with 64 and the command it meant; nothing runs', async () => {
    const result = await sandbox.run(['sesions', 'list']);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('"sesions list" looks like a mistyped command; no discussion was started.');
    expect(result.stderr).toContain('Did you mean: conclave sessions list');
    expect(result.stderr).toContain('To discuss it as a topic: conclave -- "sesions list"');
    const subcommand = await sandbox.run(['sesions', 'lst']);
    expect(subcommand.stderr).toContain('Did you mean: conclave sessions list');
    const quoted = await sandbox.run(['confgi']);
    expect(quoted.code).toBe(64);
    expect(quoted.stderr).toContain('Did you mean: conclave config');
    expect(await sessionCount()).toBe(0);
  });

  it('refuses two bare words that name no command (64), listing the commands', async () => {
    const result = await sandbox.run(['vault', 'init']);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('There is no command "vault"; "vault init" was not started as a discussion.');
    expect(result.stderr).toContain('Commands: run, sessions, answer,');
    expect(result.stderr).toContain('To discuss it as a topic: conclave -- "vault init"');
    // `conclave help <command>` is help: what names no command is the word after it.
    const help = await sandbox.run(['help', 'me']);
    expect(help.code).toBe(64);
    expect(help.stderr).toContain(
      '"me" is not a command for conclave help to explain; "help me" was not started as a discussion.',
    );
    expect(help.stderr).toContain('To discuss it as a topic: conclave -- "help me"');
    expect(await sessionCount()).toBe(0);
  });

  it('shows the help `conclave help <command>` asks for, and calls a command a group does not have unknown, --help or not (64)', async () => {
    const program = await sandbox.run(['help']);
    expect(program.code, program.stderr).toBe(0);
    expect(program.stdout).toContain('Usage: conclave [options] [command] [task...]');
    const list = await sandbox.run(['help', 'sessions', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('Usage: conclave sessions list|ls [options]');
    const group = await sandbox.run(['help', 'checkpoints']);
    expect(group.stdout).toContain('Usage: conclave checkpoints [options] [command]');
    // A group given no command shows its help as --help does: on stdout, where a pager reads it.
    // So does one given only the `--` that would end its options.
    for (const args of [
      ['--max-rounds', '1', 'sessions'],
      ['sessions', '--'],
    ]) {
      const bare = await sandbox.run(args);
      expect(bare.code, bare.stderr).toBe(0);
      expect(bare.stdout, args.join(' ')).toContain('Usage: conclave sessions [options] [command]');
      expect(bare.stderr).toBe('');
    }

    const refusals: Array<[string[], string]> = [
      [['sessions', 'prune', '--help'], "error: unknown command 'prune'"],
      [['--max-rounds', '1', 'sessions', 'prune', '--help'], "error: unknown command 'prune'"],
      [['sessions', 'help', 'prune'], "error: unknown command 'prune'"],
      [['sessions', 'lst', '-h'], '(Did you mean one of list, ls?)'],
      [['help', 'sessions', 'lst'], '(Did you mean one of list, ls?)'],
    ];
    for (const [args, message] of refusals) {
      const refused = await sandbox.run(args);
      expect(refused.code, args.join(' ')).toBe(64);
      expect(refused.stderr).toContain(message);
      expect(refused.stdout).not.toContain('Usage:');
    }
    const known = await sandbox.run(['sessions', 'list', '--help']);
    expect(known.code, known.stderr).toBe(0);
    expect(known.stdout).toContain('Usage: conclave sessions list|ls [options]');
    expect(await sessionCount()).toBe(0);
  });

  it('runs the task as a topic after -- and when it is a longer task', async () => {
    const literal = await sandbox.run(['--max-rounds', '1', '--', 'sessions list']);
    expect(literal.code, literal.stderr).toBe(0);
    const longer = await sandbox.run(['--max-rounds', '1', 'Plan the sessions list for the offsite']);
    expect(longer.code, longer.stderr).toBe(0);
    const asking = await sandbox.run(['--max-rounds', '1', 'help', 'me', 'plan', 'the', 'offsite']);
    expect(asking.code, asking.stderr).toBe(0);
    const titles = (await sandbox.json<{ title: string }[]>(['sessions', 'list'])).map((item) => item.title);
    expect(titles).toEqual(
      expect.arrayContaining(['sessions list', 'Plan the sessions list for the offsite', 'help me plan the offsite']),
    );
  });
});
