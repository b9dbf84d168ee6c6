// End to end in a real terminal (tmux): `conclave` killed outright (SIGKILL) in the middle of a
// slow unsafe call of a real MCP server, then resumed in the terminal. The uncertain-step prompt
// names the server, the tool and the arguments; "re-run" calls the tool once more, "skip" and
// "abort" never call it. The ledger the server appends to, and the file it writes when a slow
// call starts, show what was called.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliBundle, createTmuxTerminal, repoRoot, tmuxAvailable } from './tmux-terminal.js';

const serverScript = path.join(repoRoot, 'packages/runner/src/mcp/__fixtures__/test-mcp-server.mjs');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!tmuxAvailable)('an uncertain MCP call in a real terminal', () => {
  const terminal = createTmuxTerminal('conclave-mcp-e2e', { columns: 110, rows: 40 });
  const { root, home, workspace, waitForScreen, type, conclave, settledPane } = terminal;
  const file = (name: string) => path.join(workspace, name);
  const ledger = () =>
    (existsSync(file('ledger.txt')) ? readFileSync(file('ledger.txt'), 'utf8') : '').split('\n').filter(Boolean);

  beforeAll(async () => {
    await terminal.open();
    writeFileSync(
      file('.conclave.yaml'),
      [
        'mcp:',
        '  servers:',
        '    ledger:',
        `      command: ${JSON.stringify(process.execPath)}`,
        `      args: [${JSON.stringify(serverScript)}]`,
        '',
      ].join('\n'),
    );
    writeFileSync(file('ledger.prompt.md'), ['---', 'mcp: [ledger]', '---', 'Keep the ledger.', ''].join('\n'));
    writeFileSync(
      path.join(root, 'script.yaml'),
      [
        '- agent: lead',
        '  tool_calls: [{ name: ledger__append, args: { text: one } }]',
        '- agent: lead',
        '  tool_calls: [{ name: ledger__slow_append, args: { text: slow entry } }]',
        '- agent: lead',
        '  tool_calls: [{ name: ledger__append, args: { text: two } }]',
        '- agent: lead',
        '  text: The ledger is kept.',
        '',
      ].join('\n'),
    );
  }, 120_000);

  afterAll(() => {
    // A server a killed run left waiting finishes its call and ends (its stdin is closed).
    writeFileSync(file('release'), '');
    terminal.close();
  });

  /** Runs the prompt file outside the terminal and kills `conclave` (SIGKILL) once the slow call is under way. */
  async function killedDuringSlowCall(): Promise<string> {
    for (const name of ['ledger.txt', 'slow-started.txt', 'release']) rmSync(file(name), { force: true });
    const child = spawn(
      process.execPath,
      [cliBundle, 'run', 'ledger.prompt.md', '--script', path.join(root, 'script.yaml'), '--json'],
      {
        cwd: workspace,
        env: { PATH: process.env.PATH ?? '', HOME: root, CONCLAVE_HOME: home },
        stdio: 'ignore',
      },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    for (let attempt = 0; attempt < 600 && !existsSync(file('slow-started.txt')); attempt++) await pause(50);
    expect(existsSync(file('slow-started.txt'))).toBe(true);
    child.kill('SIGKILL');
    await exited;
    expect(ledger()).toEqual(['one']);
    const [session] = terminal.listSessions();
    rmSync(file('slow-started.txt'));
    return session?.id ?? '';
  }

  /** Resumes `id` in the terminal up to the uncertain-step prompt, and returns the screen. */
  async function uncertainPrompt(id: string): Promise<string> {
    await settledPane();
    type(conclave(0, `run --resume ${id}`), 'Enter');
    const plan = await waitForScreen((text) => text.includes('[Y/n]'), 'the resume prompt', 600);
    expect(plan).toContain('ledger__slow_append');
    type('y');
    return waitForScreen((text) => text.includes('Uncertain step'), 'the uncertain-step prompt', 600);
  }

  it('names the server, the tool and its arguments, and "re-run" calls the tool once', {
    timeout: 120_000,
  }, async () => {
    const id = await killedDuringSlowCall();
    const asked = await uncertainPrompt(id);
    const prompt = asked.slice(asked.indexOf('Uncertain step')).replace(/[│\s]+/g, ' ');
    expect(prompt).toContain('Tool slow_append of MCP server ledger');
    expect(prompt).toContain('Arguments: { "text": "slow entry" }');
    type('r');
    for (let attempt = 0; attempt < 600 && !existsSync(file('slow-started.txt')); attempt++) await pause(50);
    writeFileSync(file('release'), '');
    const finished = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the resumed run', 600);
    expect(finished).toContain('EXIT=0');
    expect(ledger()).toEqual(['one', 'slow entry', 'two']);
  });

  it('"skip" goes on without calling the tool', { timeout: 120_000 }, async () => {
    const id = await killedDuringSlowCall();
    await uncertainPrompt(id);
    type('s');
    const finished = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the resumed run', 600);
    expect(finished).toContain('EXIT=0');
    expect(existsSync(file('slow-started.txt'))).toBe(false);
    expect(ledger()).toEqual(['one', 'two']);
  });

  it('"abort" stops the resume without calling the tool, the session still interrupted', {
    timeout: 120_000,
  }, async () => {
    const id = await killedDuringSlowCall();
    await uncertainPrompt(id);
    type('a');
    const finished = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the resume to stop', 600);
    // `step-aborted` (exit 1), with the way to decide later.
    expect(finished).toContain('EXIT=1');
    expect(finished.replace(/\s+/g, ' ')).toContain(`conclave run --resume ${id} --on-uncertain rerun|skip`);
    expect(existsSync(file('slow-started.txt'))).toBe(false);
    expect(ledger()).toEqual(['one']);
    expect(terminal.listSessions().find((session) => session.id === id)?.status).toBe('interrupted');
  });
});
