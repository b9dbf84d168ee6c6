// The `conclave-tui` bin in a real terminal (tmux): it finds the data home as the CLI does
// (`~` in $CONCLAVE_HOME is the user's home), shows the sessions there, and plans a resume as
// `conclave tui` does (what runs next included).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRunnerDiscussion } from './runner-discussion.js';
import { createTmuxTerminal, ensureTuiBuilt, tmuxAvailable, tuiBundle } from './tmux-terminal.js';

describe.skipIf(!tmuxAvailable)('conclave-tui in a real terminal', () => {
  const terminal = createTmuxTerminal('conclave-tui-bin');
  const { root, home, workspace, waitForScreen, type, runPlain } = terminal;

  beforeAll(async () => {
    ensureTuiBuilt();
    await terminal.open();
    // A workflow whose second of three steps fails: a resume runs that step's second attempt.
    // Written first, so the discussion below is the newest session.
    writeFileSync(
      path.join(workspace, 'flow.yaml'),
      [
        'name: build-the-shed',
        'agents: { helper: { prompt: "You help." } }',
        'steps:',
        '  - shell: "true"',
        '  - shell: "test -f go"',
        '  - shell: "true"',
        '',
      ].join('\n'),
    );
    expect(() => runPlain(['run', 'flow.yaml', '--quiet'])).toThrow();
    await writeRunnerDiscussion(home, 'Plan the garden shed', 'completed');
  }, 120_000);

  afterAll(() => terminal.close());

  it('lists the sessions of a home written as ~/…, and prints the command for the chosen one', {
    timeout: 60_000,
  }, async () => {
    // The home is `<root>/home`; with HOME=<root>, `~/home` names it.
    type(
      `HOME=${root} CONCLAVE_HOME='~/${path.basename(home)}' ${process.execPath} ${tuiBundle}; echo "EXIT=$?"`,
      'Enter',
    );
    const picker = await waitForScreen((text) => text.includes('Plan the garden shed'), 'the session in the picker');
    expect(picker).toContain('q quit');
    type('Enter');
    const done = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the bin to exit');
    expect(done).toContain('EXIT=0');
    expect(done).toMatch(/conclave --resume [0-9a-z]{22} "<follow-up>"/);
  });

  it('plans the resume of a failed workflow with what runs next, as `conclave tui` does', {
    timeout: 60_000,
  }, async () => {
    type('clear', 'Enter');
    type(`cd ${workspace} && CONCLAVE_HOME=${home} ${process.execPath} ${tuiBundle}; echo "EXIT=$?"`, 'Enter');
    await waitForScreen((text) => text.includes('Plan the garden shed'), 'the picker');
    // The failed workflow is the second row: its plan shows in the details pane once selected.
    type('Down');
    const details = await waitForScreen((text) => /Plan:/.test(text), 'the plan of the failed workflow');
    expect(details).toContain('build-the-shed');
    expect(details).toMatch(/step 2 of 3, attempt 2/);
    type('q');
    const done = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the bin to exit');
    expect(done).toContain('EXIT=0');
  });
});
