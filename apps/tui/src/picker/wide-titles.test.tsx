// Titles in scripts whose characters take two columns (emoji, Japanese, Korean) are measured
// by display width: a row never runs past the screen and the columns after the title stay put.
import { cleanup } from 'ink-testing-library';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeBackend, sessionId, summary } from '../testing/fake-backend.js';
import { renderWithProviders } from '../testing/render-with-providers.js';
import { SessionPicker } from './session-picker.js';

afterEach(() => cleanup());

const titles = [
  '🚀 Ship the release 📦 with emoji 🎉 all the way through the title',
  '日本語のタイトルはとても長くて表示幅が二倍になります',
  '한국어 제목도 두 칸씩 차지합니다 그래서 길어요',
  'Plain ASCII title',
];
const sessions = titles.map((title, index) =>
  summary({ id: sessionId(index + 1), title, costUsd: index === 0 ? 0 : 1.23 }),
);

describe('SessionPicker with wide titles', () => {
  for (const columns of [80, 120]) {
    it(`keeps every row within ${columns} columns and the COST column in place`, async () => {
      const fake = createFakeBackend({ sessions });
      const view = renderWithProviders(<SessionPicker backend={fake.backend} onDone={() => {}} settleMs={0} />, {
        size: { columns, rows: 30 },
      });
      const frame = await view.waitForFrame((text) => text.includes('Plain ASCII title'));
      const lines = frame.split('\n');
      for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
      const header = lines.find((line) => line.includes('COST')) ?? '';
      const costColumn = stringWidth(header.slice(0, header.indexOf('COST')));
      const rows = lines.filter((line) => /^[› ] /.test(line) && /\$(0|1\.23)\s*$/.test(line));
      expect(rows).toHaveLength(titles.length);
      for (const row of rows) expect(stringWidth(row.slice(0, row.lastIndexOf('$')))).toBe(costColumn);
      expect(rows.some((row) => row.includes('日本語'))).toBe(true);
      expect(rows.some((row) => row.includes('한국어'))).toBe(true);
    });
  }
});
