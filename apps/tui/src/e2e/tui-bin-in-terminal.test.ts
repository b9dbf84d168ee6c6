// The `conclave-tui` bin in a real terminal (tmux): it finds the data home as the CLI does
// (`~` in $CONCLAVE_HOME is the user's home) and shows the sessions there.
import path from 'node:path';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTmuxTerminal, ensureTuiBuilt, tmuxAvailable, tuiBundle } from './tmux-terminal.js';

describe.skipIf(!tmuxAvailable)('conclave-tui in a real terminal', () => {
  const terminal = createTmuxTerminal('conclave-tui-bin');
  const { root, home, waitForScreen, type } = terminal;

  beforeAll(async () => {
    ensureTuiBuilt();
    await terminal.open();
    const engine = createEngine({ store: createFsStore({ dir: home }) });
    const session = await engine.createSession({ title: 'Plan the garden shed', mode: 'discussion' });
    session.addMessage({ role: 'user', content: 'Plan the garden shed' });
    await session.complete();
    await session.close();
    await engine.close();
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
});
