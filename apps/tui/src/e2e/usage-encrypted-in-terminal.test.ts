// The usage screen and `conclave usage` on a home encrypted at rest, in a real 80x24 terminal
// (tmux): `u` shows the calls' figures (the ledger keeps them, never the words), a session whose
// key is not on this machine is named as not counted, and the report's labels are whole.
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTmuxTerminal, ensureCliBuilt, tmuxAvailable } from './tmux-terminal.js';

describe.skipIf(!tmuxAvailable)('usage on an encrypted home (80x24)', () => {
  const terminal = createTmuxTerminal('conclave-usage-sealed', { columns: 80, rows: 24 });
  const { home, waitForScreen, type, runPlain, conclave, settledPane } = terminal;
  const config = (encryption: 'on' | 'off') => writeFile(path.join(home, 'config.yaml'), `encryption: ${encryption}\n`);

  beforeAll(async () => {
    ensureCliBuilt();
    await terminal.open();
    runPlain(['keys', 'init']);
    await config('on');
    runPlain(['Evaluate my idea: a vault for the tea rota']);
  }, 120_000);

  afterAll(() => terminal.close());

  it('shows the usage with u, as conclave usage counts it', { timeout: 90_000 }, async () => {
    const report = JSON.parse(runPlain(['usage', '--json'])) as { total: { calls: number } };
    expect(report.total.calls).toBeGreaterThan(0);
    type(conclave(0, 'tui'), 'Enter');
    await waitForScreen((text) => text.includes('u usage'), 'the picker');
    type('u');
    const usage = await waitForScreen((text) => text.includes('Total:'), 'the usage screen');
    expect(usage).toContain('Usage of every session');
    expect(usage).toContain(`${report.total.calls} calls`);
    type('Escape');
    await waitForScreen((text) => !text.includes('Total:'), 'the list again');
    type('q');
    expect(await waitForScreen((text) => /EXIT=\d+/.test(text), 'the picker to exit')).toContain('EXIT=0');
  });

  it('prints whole labels at 80 columns', { timeout: 60_000 }, async () => {
    await settledPane();
    type(conclave(0, 'usage'), 'Enter');
    const printed = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the report');
    expect(printed).toContain('total, all time');
    expect(printed).not.toContain('…');
    for (const line of printed.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('says which sessions it could not count when their key is not on this machine', { timeout: 90_000 }, async () => {
    await config('off');
    await rename(path.join(home, 'keys'), path.join(home, 'keys-elsewhere'));
    try {
      await settledPane();
      type(conclave(0, 'tui'), 'Enter');
      await waitForScreen((text) => text.includes('u usage'), 'the picker');
      type('u');
      const usage = await waitForScreen((text) => text.includes('not counted'), 'the usage screen');
      expect(usage).toContain('Usage of every session');
      expect(usage).toMatch(/1 session is encrypted with a key not on this machine/);
      type('Escape');
      await waitForScreen((text) => !text.includes('not counted'), 'the list again');
      type('q');
      await waitForScreen((text) => /EXIT=\d+/.test(text), 'the picker to exit');

      await settledPane();
      type(conclave(0, 'usage'), 'Enter');
      const printed = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the report');
      expect(printed).toMatch(/1 session is encrypted with a key not on this machine/);
    } finally {
      await rename(path.join(home, 'keys-elsewhere'), path.join(home, 'keys'));
      await config('on');
    }
  });
});
