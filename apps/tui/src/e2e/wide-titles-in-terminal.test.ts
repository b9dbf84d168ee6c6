// The picker in a real terminal (tmux) with titles whose characters take two columns (emoji,
// Japanese, Korean): each title is cut by display width, so every row stays on one line and
// the MODE and COST columns line up, at 80x24 and at 120x35.
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTmuxTerminal, tmuxAvailable } from './tmux-terminal.js';

const titles = [
  '🚀 Ship the release 📦 with emoji 🎉 all the way through a title that is long enough to be cut',
  '日本語のタイトルはとても長くて表示幅が二倍になりますので列がずれないように測ります',
  '한국어 제목도 두 칸씩 차지합니다 그래서 표가 어긋나면 안 됩니다 정말로 길어요',
  'Plain ASCII title',
];
const starts = ['🚀 Ship', '日本語の', '한국어 제목', 'Plain ASCII title'];

/** The display column at which `text` starts in `line`. */
function columnOf(line: string, text: string): number {
  expect(line, `"${text}" in: ${line}`).toContain(text);
  return stringWidth(line.slice(0, line.indexOf(text)));
}

describe.skipIf(!tmuxAvailable)('the picker with wide titles in a real terminal', () => {
  const terminal = createTmuxTerminal('conclave-wide-titles');
  const { tmux, waitForScreen, type, conclave, runPlain } = terminal;

  beforeAll(async () => {
    await terminal.open();
    for (const title of titles) runPlain([title]);
    type(conclave(0, 'tui'), 'Enter');
    await waitForScreen((text) => text.includes('Plain ASCII title'), 'the picker');
  }, 180_000);

  afterAll(() => terminal.close());

  it.each([
    [80, 24],
    [120, 35],
  ])('at %ix%i keeps each title on its row and the columns in place', { timeout: 60_000 }, async (width, height) => {
    tmux('resize-window', '-t', 'e2e', '-x', String(width), '-y', String(height));
    const screen = await waitForScreen(
      (text) =>
        text.split('\n').some((line) => {
          const used = stringWidth(line.trimEnd());
          return line.includes('TITLE') && line.includes('COST') && used > width - 12 && used <= width;
        }),
      `the picker laid out for ${width} columns`,
    );
    const lines = screen.split('\n');
    const header = lines.find((line) => line.includes('TITLE') && line.includes('COST')) ?? '';
    const rows = starts.map((start) => lines.find((line) => line.includes(start)) ?? '');
    const modeColumn = columnOf(header, 'MODE');
    const costColumn = columnOf(header, 'COST');
    for (const row of rows) {
      expect(stringWidth(row.trimEnd()), row).toBeLessThanOrEqual(width);
      expect(columnOf(row, 'discussion'), row).toBe(modeColumn);
      expect(columnOf(row, '$'), row).toBe(costColumn);
    }
    // The three long titles are cut with an ellipsis; the next line is another row, not the title's rest.
    expect(rows.filter((row) => row.includes('…'))).toHaveLength(3);
    for (const row of rows) {
      const next = lines[lines.indexOf(row) + 1] ?? '';
      expect(next.trim() === '' || /discussion|^[─-]/.test(next) || next.includes('✓'), next).toBe(true);
    }
  });
});
