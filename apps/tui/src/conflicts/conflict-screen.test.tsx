import { stripVTControlCharacters } from 'node:util';
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { keys, renderWithProviders } from '../testing/render-with-providers.js';
import { ConflictScreen } from './conflict-screen.js';
import type { ConflictAnswer } from './use-conflict-screen.js';

afterEach(() => cleanup());

const changes = [
  { path: 'src/api.ts', status: 'unchanged' as const },
  { path: 'src/auth.ts', status: 'modified' as const },
  { path: 'src/db.ts', status: 'deleted' as const },
];
const diff = ['--- a/src/auth.ts', '+++ b/src/auth.ts', '@@ -1,2 +1,2 @@', '-const secret = 1;', '+const secret = 2;']
  .concat(Array.from({ length: 60 }, (_, index) => ` context line ${index}`))
  .join('\n');

function renderScreen() {
  const answers: ConflictAnswer[] = [];
  const view = renderWithProviders(
    <ConflictScreen changes={changes} diffs={{ 'src/auth.ts': diff }} onAnswer={(answer) => answers.push(answer)} />,
    { size: { columns: 80, rows: 24 } },
  );
  return { ...view, answers };
}

describe('ConflictScreen', () => {
  it('lists changed files with status, folds unchanged ones away, and keeps by default', async () => {
    const view = renderScreen();
    const frame = await view.waitForFrame((text) => text.includes('src/auth.ts'));
    expect(frame).toMatch(/› modified\s+src\/auth\.ts\s+→ keep current/);
    expect(frame).toMatch(/deleted\s+src\/db\.ts\s+→ keep current/);
    expect(frame).not.toContain('src/api.ts');
    expect(frame).toContain('1 unchanged file not shown');
    expect(frame).toContain('Enter will keep 2 current files');
    await view.press(keys.enter);
    expect(view.answers).toEqual([{ choices: { 'src/auth.ts': 'keep', 'src/db.ts': 'keep' } }]);
  });

  it('wraps a long summary instead of cutting it, at 120 columns', async () => {
    const long = Array.from({ length: 5 }, (_, index) => ({
      path: `src/very/long/path/to/the/module-number-${index + 1}.ts`,
      status: 'modified' as const,
    }));
    const view = renderWithProviders(<ConflictScreen changes={long} diffs={{}} onAnswer={() => undefined} />, {
      size: { columns: 120, rows: 40 },
    });
    await view.waitForFrame((text) => text.includes('module-number-1'));
    await view.press('r', keys.down, 'r', keys.down, 'r', keys.down, 'r');
    const frame = await view.waitForFrame((text) => text.includes('restore 4 from the snapshot'));
    const joined = stripVTControlCharacters(frame)
      .replace(/[│╭╮╰╯─]/g, ' ')
      .replace(/\s+/g, ' ');
    expect(joined).toContain('then resume.');
    expect(joined).not.toContain('…');
  });

  it('r restores the file under the cursor and the summary says so before applying', async () => {
    const view = renderScreen();
    await view.waitForFrame((text) => text.includes('src/auth.ts'));
    await view.press(keys.down, 'r');
    const frame = await view.waitForFrame((text) => text.includes('recreate from snapshot'));
    expect(frame).toContain('restore 1 from the snapshot (src/db.ts)');
    await view.press(keys.up, 'r', 'k', keys.enter);
    expect(view.answers).toEqual([{ choices: { 'src/auth.ts': 'keep', 'src/db.ts': 'restore' } }]);
  });

  it('applies a choice made just before Enter, though the screen has not drawn it yet', async () => {
    const view = renderScreen();
    await view.waitForFrame((text) => text.includes('src/auth.ts'));
    // Two keys in one go, as a fast typist's or a script's: the screen draws after both.
    view.stdin.write('r');
    view.stdin.write(keys.enter);
    await view.waitForFrame(() => view.answers.length === 1, 'the answer');
    expect(view.answers).toEqual([{ choices: { 'src/auth.ts': 'restore', 'src/db.ts': 'keep' } }]);
  });

  it('flags a file created since the session read it as missing, and says a restore deletes it', async () => {
    const view = renderWithProviders(
      <ConflictScreen
        changes={[...changes, { path: 'notes/new.md', status: 'created-since' as const }]}
        diffs={{}}
        onAnswer={() => undefined}
      />,
      { size: { columns: 80, rows: 24 } },
    );
    const frame = await view.waitForFrame((text) => text.includes('notes/new.md'));
    expect(frame).toMatch(/!new since read\s+notes\/new\.md/);
    expect(frame).toContain('notes/new.md was missing when the session read it');
    expect(stripVTControlCharacters(frame).replace(/(\s*│\s*)+/g, ' ')).toContain(
      'restore deletes it (your version is kept with the session',
    );
  });

  it('d shows a scrollable diff and closes it again; Esc cancels the resume', async () => {
    const view = renderScreen();
    await view.waitForFrame((text) => text.includes('src/auth.ts'));
    await view.press('d');
    const opened = await view.waitForFrame((text) => text.includes('+const secret = 2;'));
    expect(opened).toContain('diff src/auth.ts');
    expect(opened).not.toContain('context line 40');
    await view.press(' ', ' ', ' ');
    const scrolled = await view.waitForFrame((text) => text.includes('context line 40'));
    expect(scrolled).not.toContain('+const secret = 2;');
    await view.press('d');
    await view.waitForFrame((text) => text.includes('Files changed since'));
    await view.press(keys.escape);
    await view.waitForFrame(() => view.answers.length > 0, 'the cancel answer');
    expect(view.answers).toEqual(['cancel']);
  });
});
