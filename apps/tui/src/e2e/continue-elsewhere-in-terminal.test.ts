// A follow-up chosen in the picker opened in another directory (tmux, 80x24): the follow-up box
// says where the child will work, and the child works in its parent's workspace, not in the
// directory the picker was opened from.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTmuxTerminal, tmuxAvailable } from './tmux-terminal.js';

describe.skipIf(!tmuxAvailable)('a follow-up from a picker opened elsewhere, in a real terminal', () => {
  const terminal = createTmuxTerminal('conclave-continue-elsewhere');
  const { root, workspace, waitForScreen, type, conclave, tmux, runPlain, settledPane } = terminal;
  const elsewhere = path.join(root, 'elsewhere');

  beforeAll(async () => {
    await terminal.open();
    tmux('resize-window', '-t', 'e2e', '-x', '80', '-y', '24');
    mkdirSync(elsewhere);
    runPlain(['Evaluate the caching idea']);
  }, 120_000);
  afterAll(() => terminal.close());

  it("says where the child works, and runs it in the parent's workspace", { timeout: 120_000 }, async () => {
    await settledPane();
    type(`cd ${elsewhere} && ${conclave(0, 'tui')}`, 'Enter');
    await waitForScreen((text) => text.includes('Evaluate the caching idea'), 'the picker');
    type('c');
    const box = await waitForScreen((text) => text.includes('Follow-up question:'), 'the follow-up box');
    expect(box.replace(/\s+/g, ' ')).toContain(`Works in ${workspace}`);
    type('-l', 'What about invalidation?');
    await waitForScreen((text) => text.includes('What about invalidation?'), 'the typed question');
    type('Enter');
    expect(await waitForScreen((text) => /EXIT=\d+/.test(text), 'the continued run')).toContain('EXIT=0');
    const sessions = JSON.parse(runPlain(['sessions', 'list', '--json'])) as {
      title: string;
      parentId: string | null;
      workspaceDir: string | null;
    }[];
    const child = sessions.find((session) => session.parentId !== null);
    expect(child?.title).toBe('What about invalidation?');
    expect(child?.workspaceDir).toBe(workspace);
  });
});
