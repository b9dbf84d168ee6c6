// The picker's keys for organizing sessions, in a real 80x24 terminal (tmux): `r` names the
// session under the cursor, `t` sets its tags, `p` pins it to the top, `#` filters by a tag and
// `A` shows the archived sessions it otherwise leaves out. What the keys change is journaled.
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTmuxTerminal, ensureTuiBuilt, tmuxAvailable, tuiBundle } from './tmux-terminal.js';

interface Listed {
  id: string;
  title: string;
  name: string | null;
  tags: string[];
  pinned: boolean;
}

describe.skipIf(!tmuxAvailable)('organizing sessions in the picker (80x24)', () => {
  const terminal = createTmuxTerminal('conclave-organize', { columns: 80, rows: 24 });
  const { home, workspace, waitForScreen, type, runPlain } = terminal;
  const listed = () => JSON.parse(runPlain(['sessions', 'list', '--json'])) as Listed[];

  beforeAll(async () => {
    ensureTuiBuilt();
    await terminal.open();
    const engine = createEngine({ store: createFsStore({ dir: home }) });
    for (const title of ['Old notes nobody reads', 'Draft the tea menu', 'Plan the garden shed']) {
      const session = await engine.createSession({ title, mode: 'discussion', workspaceDir: workspace });
      session.addMessage({ role: 'user', content: title });
      await session.complete();
      await session.close();
      if (title.startsWith('Old')) await engine.changeMetadata(session.id, { archived: true });
    }
    await engine.close();
  }, 120_000);

  afterAll(() => terminal.close());

  it('renames, tags and pins with r, t and p; filters by tag with #; shows the archived with A', {
    timeout: 90_000,
  }, async () => {
    type(`cd ${workspace} && CONCLAVE_HOME=${home} ${process.execPath} ${tuiBundle}; echo "EXIT=$?"`, 'Enter');
    const opened = await waitForScreen((text) => text.includes('Plan the garden shed'), 'the picker');
    expect(opened).toContain('Draft the tea menu');
    expect(opened).not.toContain('Old notes nobody reads');
    expect(opened).toContain('r rename');
    expect(opened).toContain('p pin');

    // The tea menu is the second row: pinned, it becomes the first.
    type('Down');
    type('p');
    await waitForScreen((text) => text.includes('Pinned'), 'the pin notice');
    const pinnedScreen = await waitForScreen(
      (text) => text.indexOf('Draft the tea menu') < text.indexOf('Plan the garden shed'),
      'the pinned session first',
    );
    expect(pinnedScreen).toContain('Draft the tea menu');
    expect(listed().find((entry) => entry.title === 'Draft the tea menu')?.pinned).toBe(true);

    type('r');
    await waitForScreen((text) => text.includes('Name:'), 'the name box');
    type('-l', 'tea menu');
    type('Enter');
    await waitForScreen((text) => text.includes('Named "tea menu"'), 'the rename notice');
    expect(listed().find((entry) => entry.title === 'Draft the tea menu')?.name).toBe('tea menu');

    type('t');
    await waitForScreen((text) => text.includes('Tags:'), 'the tags box');
    type('-l', 'work q3');
    type('Enter');
    await waitForScreen((text) => text.includes('#q3 #work'), 'the tags on the row');
    expect(listed().find((entry) => entry.title === 'Draft the tea menu')?.tags).toEqual(['q3', 'work']);

    type('#');
    const filtered = await waitForScreen((text) => text.includes('tag: q3'), 'the tag filter');
    expect(filtered).toContain('tea menu');
    expect(filtered).not.toContain('Plan the garden shed');
    type('#', '#');
    const unfiltered = await waitForScreen((text) => text.includes('Plan the garden shed'), 'the tag filter off');
    expect(unfiltered).not.toContain('tag:');

    type('A');
    const archived = await waitForScreen((text) => text.includes('Old notes nobody reads'), 'the archived session');
    expect(archived).toContain('with archived');
    expect(listed().map((entry) => entry.title)).not.toContain('Old notes nobody reads');

    type('q');
    const done = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the bin to exit');
    expect(done).toContain('EXIT=0');
  });
});
