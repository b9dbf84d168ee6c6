// The picker's usage screen in a real 80x24 terminal (tmux): `u` shows what every session's
// model calls cost in all and a bar per day, the same totals as `conclave usage`, and any of
// its keys goes back to the list.
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTmuxTerminal, ensureCliBuilt, ensureTuiBuilt, tmuxAvailable, tuiBundle } from './tmux-terminal.js';

describe.skipIf(!tmuxAvailable)('the usage screen in the picker (80x24)', () => {
  const terminal = createTmuxTerminal('conclave-usage', { columns: 80, rows: 24 });
  const { home, workspace, waitForScreen, type, runPlain } = terminal;

  beforeAll(async () => {
    ensureTuiBuilt();
    ensureCliBuilt();
    await terminal.open();
    const engine = createEngine({ store: createFsStore({ dir: home }) });
    for (const [title, costUsd] of [
      ['Draft the tea menu', 1.25],
      ['Plan the garden shed', 2.5],
    ] as const) {
      const session = await engine.createSession({ title, mode: 'discussion', workspaceDir: workspace });
      session.addMessage({ role: 'user', content: title });
      session.record({
        type: 'usage-recorded',
        provider: 'openai',
        model: 'gpt-4o',
        agent: 'critic',
        round: 1,
        stepKey: null,
        inputTokens: 1200,
        outputTokens: 300,
        costUsd,
      });
      await session.complete();
      await session.close();
    }
    await engine.close();
  }, 120_000);

  afterAll(() => terminal.close());

  it('shows the totals and a bar for today with u, and goes back with Esc', { timeout: 90_000 }, async () => {
    type(`cd ${workspace} && CONCLAVE_HOME=${home} ${process.execPath} ${tuiBundle}; echo "EXIT=$?"`, 'Enter');
    const opened = await waitForScreen((text) => text.includes('Plan the garden shed'), 'the picker');
    expect(opened).toContain('u usage');

    type('u');
    const usage = await waitForScreen((text) => text.includes('Total:'), 'the usage screen');
    expect(usage).toContain('Usage of every session');
    expect(usage).toContain('Total: $3.75, 2 calls, 2.4k in / 600 out tokens');
    const report = JSON.parse(runPlain(['usage', '--json'])) as {
      total: { costUsd: number };
      rows: Array<{ day: string }>;
    };
    expect(report.total.costUsd).toBeCloseTo(3.75, 9);
    const today = report.rows.at(-1)?.day ?? '';
    const todayLine = usage.split('\n').find((line) => line.startsWith(today)) ?? '';
    expect(todayLine).toContain('$3.75');
    expect(todayLine).toContain('█');
    expect(usage).not.toContain('Draft the tea menu');

    type('Escape');
    const back = await waitForScreen((text) => text.includes('Draft the tea menu'), 'the list again');
    expect(back).not.toContain('Total:');
    type('q');
    const done = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the bin to exit');
    expect(done).toContain('EXIT=0');
  });
});
