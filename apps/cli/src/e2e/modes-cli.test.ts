// End-to-end: one mode vocabulary on the command line: runs and listings accept the
// registered modes, the help lists them, and a mode that runs files says how to run it.
import { createEngine } from '@resume/core';
import { builtinModes } from '@resume/runner/modes';
import { createFsStore } from '@resume/storage-fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

describe('conclave: modes by their registered names', () => {
  const sandbox = sandboxFixture('all');

  it('lists every registered mode in the help of a run and of sessions list', async () => {
    const help = await sandbox.run(['--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'how the agents work: discussion, iterative, orchestrated, prompt (conclave run <file>), chain (conclave run <file>)',
    );
    const listHelp = await sandbox.run(['sessions', 'list', '--help']);
    expect(listHelp.stdout.replace(/\s+/g, ' ')).toContain(
      'only this mode (discussion, iterative, orchestrated, prompt, chain, custom)',
    );
  });

  it('offers every start option a mode declares as a flag, checked by what the mode says it takes', async () => {
    const help = (await sandbox.run(['--help'])).stdout.replace(/\s+/g, ' ');
    const declared = builtinModes.list().flatMap((mode) => mode.commandLine ?? []);
    expect(declared.map((flag) => flag.flags)).toEqual(
      expect.arrayContaining(['--max-rounds <n>', '--force-consensus', '--project <file>', '--start-chunk <n>']),
    );
    for (const flag of declared) expect(help).toContain(`${flag.flags} ${flag.description}`);
    const bad = await sandbox.run(['--max-rounds', 'many', 'Plan the migration']);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('--max-rounds takes a whole number');
    const wrongMode = await sandbox.run(['--start-chunk', '2', 'Plan the migration']);
    expect(wrongMode.code).toBe(64);
    expect(wrongMode.stderr).toContain('--start-chunk applies to iterative mode; this is a discussion run.');
  });

  it('filters listings by any registered mode, and refuses an unknown one naming the modes (64)', async () => {
    const chain = await sandbox.run(['sessions', 'list', '--mode', 'chain', '--json']);
    expect(chain.code).toBe(0);
    expect(JSON.parse(chain.stdout)).toEqual([]);
    const alias = await sandbox.run(['--list-sessions', '--mode', 'prompt', '--json']);
    expect(alias.code).toBe(0);
    const unknown = await sandbox.run(['sessions', 'list', '--mode', 'debate']);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).not.toContain('code-review');
    expect(unknown.stderr).toContain('Unknown mode "debate"');
    expect(unknown.stderr).toContain('discussion, iterative, orchestrated, prompt, chain, custom');
  });

  it('filters by the mode a program recorded for its own sessions', async () => {
    const engine = createEngine({ store: createFsStore({ dir: sandbox.home }) });
    const session = await engine.createSession({ title: 'reviewed by a program', mode: 'code-review' });
    await session.complete();
    await session.close();
    const listed = await sandbox.json<Array<{ id: string; mode: string }>>([
      'sessions',
      'list',
      '--mode',
      'code-review',
    ]);
    expect(listed.map((item) => [item.id, item.mode])).toEqual([[session.id, 'code-review']]);
  });

  it('refuses up front a completed session a program wrote in a runner mode, before a provider or a question', async () => {
    const engine = createEngine({ store: createFsStore({ dir: sandbox.home }) });
    const session = await engine.createSession({ title: 'a discussion an app wrote', mode: 'discussion' });
    await session.complete();
    await session.close();
    for (const args of [
      ['--resume', session.id],
      ['--resume', session.id, 'What about backups?'],
    ]) {
      const refused = await sandbox.run(args);
      expect(refused.code).toBe(65);
      expect(refused.stderr).toContain('it was not started by the runner (mode discussion)');
      expect(refused.stderr).toContain('The program that wrote it continues it');
      expect(refused.stderr).not.toContain('Using the offline scripted provider');
    }
  });

  it('a run in a mode that starts from a file says to run the file (64), an unknown mode names the modes', async () => {
    const chain = await sandbox.run(['--mode', 'chain', 'Summarise the notes']);
    expect(chain.code).toBe(64);
    expect(chain.stderr).toContain('The chain mode runs a workflow spec (.yaml), not a task.');
    expect(chain.stderr).toContain('conclave run <file>');
    const unknown = await sandbox.run(['--mode', 'debate', 'Summarise the notes']);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('Unknown mode "debate"');
    expect(unknown.stderr).toContain('discussion, iterative, orchestrated, prompt, chain');
  });
});

describe('conclave sessions list --status', () => {
  const sandbox = sandboxFixture('all');

  it('refuses an unknown status (64) naming it and every status a listing accepts, waiting and sleeping included', async () => {
    for (const args of [
      ['sessions', 'list', '--status', 'bogus'],
      ['sessions', 'list', '--status', 'interrupted,bogus', '--json'],
      ['--list-sessions', '--status', 'bogus'],
    ]) {
      const result = await sandbox.run(args);
      expect(result.code, args.join(' ')).toBe(64);
      expect(result.stderr).toContain('Unknown status "bogus" for --status.');
      expect(result.stderr).toContain(
        'Statuses: running, interrupted, waiting, sleeping, completed, failed, damaged, unreadable (several: --status interrupted,failed)',
      );
      expect(result.stderr).not.toContain('Invalid input');
    }
  });
});
