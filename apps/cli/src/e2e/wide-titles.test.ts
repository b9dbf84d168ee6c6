// Tables of the human output with titles whose characters take two columns (emoji, Japanese,
// Korean): every cell is measured by display width, so the columns line up row after row.
import stringWidth from 'string-width';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

assertBuilt();

const titles = [
  '🚀 Ship the release 📦 with emoji 🎉 all the way through a title that is long enough to be cut',
  '日本語のタイトルはとても長くて表示幅が二倍になりますので列がずれないように測ります',
  '한국어 제목도 두 칸씩 차지합니다 그래서 표가 어긋나면 안 됩니다 정말로 길어요',
  'Plain ASCII title',
];

/** The display column at which `text` starts in `line`. */
function columnOf(line: string, text: string): number {
  expect(line).toContain(text);
  return stringWidth(line.slice(0, line.indexOf(text)));
}

describe('tables with wide titles', () => {
  const sandbox = sandboxFixture('all');

  beforeAll(async () => {
    for (const title of titles) {
      const run = await sandbox.run([title]);
      expect(run.code, run.stderr).toBe(0);
    }
  });

  it('sessions list cuts titles to 60 columns and keeps every column in place', async () => {
    const list = await sandbox.run(['sessions', 'list']);
    expect(list.code, list.stderr).toBe(0);
    const [header = '', ...rows] = list.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(titles.length);
    const costColumn = columnOf(header, 'COST');
    const titleColumn = columnOf(header, 'TITLE');
    for (const row of rows) {
      expect(columnOf(row, '$'), row).toBe(costColumn);
      expect(stringWidth(row), row).toBeLessThanOrEqual(titleColumn + 60);
    }
    for (const start of ['🚀 Ship', '日本語の', '한국어 제목', 'Plain ASCII title'])
      expect(columnOf(rows.find((row) => row.includes(start)) ?? '', start)).toBe(titleColumn);
    expect(rows.filter((row) => row.endsWith('…'))).toHaveLength(3);
  });

  it('sessions cleanup lines its reasons up after titles cut to 50 columns', async () => {
    const cleanup = await sandbox.run(['sessions', 'cleanup', '--older-than', '0d', '--dry-run']);
    expect(cleanup.code, cleanup.stderr).toBe(0);
    const rows = cleanup.stdout.split('\n').filter((line) => line.includes('not updated for'));
    expect(rows).toHaveLength(titles.length);
    const reasonColumns = new Set(rows.map((row) => columnOf(row, 'not updated for')));
    expect(reasonColumns.size).toBe(1);
  });
});
