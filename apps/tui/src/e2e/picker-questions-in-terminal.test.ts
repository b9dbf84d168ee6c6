// The picker's questions in a real terminal (tmux). Deleting a session with children at 80x24:
// the question says what happens to them (they keep their own history; the trash keeps their
// parent link until it is emptied, a delete for good loses it), in the picker's `d` and in
// `conclave sessions delete`. And `c` on an unfinished
// session asks first whether to resume it, as the "Unfinished session" screen does.
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRunnerDiscussion } from './runner-discussion.js';
import { createTmuxTerminal, tmuxAvailable } from './tmux-terminal.js';

const KEPT_IN_TRASH = '2 child sessions will keep their parent link until the trash is emptied';
const ORPHANS = '2 child sessions will keep their own history and lose their parent link';

describe.skipIf(!tmuxAvailable)('deleting a session with children, in a real terminal', () => {
  const terminal = createTmuxTerminal('conclave-delete');
  const { home, waitForScreen, type, conclave, tmux, settledPane } = terminal;
  let parentId = '';

  beforeAll(async () => {
    await terminal.open();
    tmux('resize-window', '-t', 'e2e', '-x', '80', '-y', '24');
    const engine = createEngine({ store: createFsStore({ dir: home }) });
    const parent = await engine.createSession({ title: 'Plan the garden shed', mode: 'discussion' });
    parentId = parent.id;
    await parent.complete();
    await parent.close();
    for (const title of ['What about a green roof?', 'What if it is smaller?']) {
      const child = await engine.createSession({ title, mode: 'discussion', parentId });
      await child.complete();
      await child.close();
    }
    await engine.close();
  }, 120_000);
  afterAll(() => terminal.close());

  it("says what happens to the children on the picker's d", { timeout: 60_000 }, async () => {
    await settledPane();
    type(conclave(0, 'tui'), 'Enter');
    await waitForScreen((text) => text.includes('Plan the garden shed'), 'the picker');
    // Newest first: the parent is the third row.
    type('Down');
    type('Down');
    type('d');
    const asked = await waitForScreen((text) => text.includes('[y/N]'), 'the delete question');
    expect(asked.replace(/\s+/g, ' ')).toContain(KEPT_IN_TRASH);
    expect(asked).not.toContain('everything derived');
    // The screen still fits: the title line and the key help are not pushed off.
    expect(asked).toContain('Conclave sessions');
    expect(asked).toContain('Esc/q quit');
    type('n');
    type('q');
    await waitForScreen((text) => /EXIT=\d+/.test(text), 'the browser to exit');
  });

  it('says the same in `conclave sessions delete`, and with --now that they lose their parent link', {
    timeout: 60_000,
  }, async () => {
    for (const [flags, notice] of [
      ['', KEPT_IN_TRASH],
      [' --now', ORPHANS],
    ] as const) {
      await settledPane();
      type(conclave(0, `sessions delete ${parentId}${flags}`), 'Enter');
      const asked = await waitForScreen((text) => text.includes('[y/N]'), 'the delete question');
      expect(asked.replace(/\s+/g, ' ')).toContain(notice);
      expect(asked).not.toContain('everything derived');
      type('Enter');
      const done = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the command to exit');
      expect(done).toContain('is unchanged');
    }
  });
});

describe.skipIf(!tmuxAvailable)("the picker's c on an unfinished session, in a real terminal", () => {
  const terminal = createTmuxTerminal('conclave-unfinished');
  const { home, waitForScreen, type, conclave, settledPane } = terminal;

  beforeAll(async () => {
    await terminal.open();
    await writeRunnerDiscussion(home, 'Plan the garden shed', 'interrupted');
  }, 120_000);
  afterAll(() => terminal.close());

  it('shows the Unfinished session screen first, and cancel starts nothing', { timeout: 60_000 }, async () => {
    await settledPane();
    type(conclave(0, '--resume'), 'Enter');
    await waitForScreen((text) => text.includes('Plan the garden shed'), 'the picker');
    type('c');
    const screen = await waitForScreen((text) => text.includes('Cancel'), 'the unfinished session screen');
    expect(screen).toContain('"Plan the garden shed" is interrupted');
    expect(screen).toContain('Resume it first, then ask the follow-up');
    expect(screen).toContain('Ask the follow-up now');
    type('q');
    const done = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the command to exit');
    expect(done).toContain('Nothing was started');
    expect(done).toContain('EXIT=0');
  });
});

describe.skipIf(!tmuxAvailable)('the model-unavailable screen on a resume, in a real terminal', () => {
  const terminal = createTmuxTerminal('conclave-model-gone');
  const { waitForScreen, type, conclave, tmux, listSessions, settledPane } = terminal;

  beforeAll(() => terminal.open(), 120_000);
  afterAll(() => terminal.close());

  it('leaves no stale status line behind once the run goes on', { timeout: 120_000 }, async () => {
    await settledPane();
    type(conclave(300, '--model gpt-4o "Pick the database"'), 'Enter');
    await waitForScreen((text) => text.includes('round 2'), 'the second round');
    type('C-c');
    expect(await waitForScreen((text) => /EXIT=\d+/.test(text), 'the interrupt')).toContain('EXIT=130');
    const id = listSessions().find((session) => session.title === 'Pick the database')?.id;
    await settledPane();
    type(conclave(0, `--resume ${id} --yes`, 'CONCLAVE_SCRIPTED_MODELS=gpt-4.1'), 'Enter');
    await waitForScreen((text) => text.includes("Model 'gpt-4o' is not available"), 'the model-unavailable screen');
    type('1');
    await waitForScreen((text) => /EXIT=\d+/.test(text), 'the resumed run');
    const everything = tmux('capture-pane', '-p', '-S', '-300', '-t', 'e2e');
    expect(everything).toContain('EXIT=0');
    expect(everything).not.toContain('Ctrl+C saves a checkpoint and stops');
  });
});
