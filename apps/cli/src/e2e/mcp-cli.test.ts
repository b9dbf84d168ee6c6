// End-to-end: a prompt file whose agent calls the tools of a real MCP server (stdio, started
// from the config), `conclave` killed in the middle of a slow unsafe call, and the resume:
// refused in a pipe without a decision, then run with `--on-uncertain`. The ledger the server
// appends to shows what was called, and how often.
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const serverScript = fileURLToPath(
  new URL('../../../../packages/runner/src/mcp/__fixtures__/test-mcp-server.mjs', import.meta.url),
);

const sandbox = sandboxFixture();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const file = (name: string) => path.join(sandbox.workspace, name);
/** An orchestrated run of `task` with the ledger server's tools, scripted by `script`. */
const withLedger = (script: string, task: string) => [
  '--mode',
  'orchestrated',
  '--mcp',
  'ledger',
  '--script',
  script,
  task,
];

/** Writes a file of these lines, each ended by a newline. */
const writeLines = (target: string, lines: string[]) => writeFile(target, `${lines.join('\n')}\n`);
const ledger = async () => (await readFile(file('ledger.txt'), 'utf8').catch(() => '')).split('\n').filter(Boolean);

async function waitForText(name: string, differentFrom = ''): Promise<string> {
  for (;;) {
    const text = (await readFile(file(name), 'utf8').catch(() => '')).trim();
    if (text && text !== differentFrom) return text;
    await pause(20);
  }
}

/** Whether a process still runs (a zombie waiting to be reaped does not). */
function isRunning(pid: number): boolean {
  try {
    return !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

beforeEach(async () => {
  await writeLines(file('.conclave.yaml'), [
    'mcp:',
    '  servers:',
    '    ledger:',
    `      command: ${JSON.stringify(process.execPath)}`,
    `      args: [${JSON.stringify(serverScript)}]`,
  ]);
  await writeLines(file('ledger.prompt.md'), ['---', 'mcp: [ledger]', '---', 'Keep the ledger.']);
  await writeLines(path.join(sandbox.root, 'script.yaml'), [
    '- agent: lead',
    '  tool_calls: [{ name: ledger__append, args: { text: one } }]',
    '- agent: lead',
    '  tool_calls: [{ name: ledger__slow_append, args: { text: slow } }]',
    '- agent: lead',
    '  tool_calls: [{ name: ledger__append, args: { text: two } }]',
    '- agent: lead',
    '  text: The ledger is kept.',
  ]);
});

/** Runs the prompt file and SIGKILLs `conclave` once the slow call is under way. */
async function killedDuringSlowCall(): Promise<{ id: string; serverPid: number }> {
  const running = sandbox.start(['run', 'ledger.prompt.md', '--script', path.join(sandbox.root, 'script.yaml')]);
  const serverPid = Number(await waitForText('slow-started.txt'));
  running.child.kill('SIGKILL');
  await running.done;
  const [session] = await sandbox.json<Array<{ id: string }>>(['sessions', 'list']);
  return { id: session?.id ?? '', serverPid };
}

describe('conclave run with an MCP server', () => {
  it('after a crash in a slow unsafe call, asks before calling it again and never repeats a completed call', async () => {
    const { id, serverPid } = await killedDuringSlowCall();
    expect(await ledger()).toEqual(['one']);

    const plan = await sandbox.run(['run', '--resume', id, '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout + plan.stderr).toContain('ledger__slow_append');

    const refused = await sandbox.run(['run', '--resume', id, '--yes']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('--on-uncertain');
    expect(refused.stderr).toContain('ledger__slow_append');

    const resuming = sandbox.start(['run', '--resume', id, '--yes', '--on-uncertain', 'rerun']);
    // The server the killed run left in the middle of the call is stopped before the call is made again.
    const rerunBy = Number(await waitForText('slow-started.txt', String(serverPid)));
    expect(rerunBy).not.toBe(serverPid);
    expect(isRunning(serverPid)).toBe(false);
    await writeFile(file('release'), '');
    const resumed = await resuming.done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `MCP server ledger: stopped the process the interrupted run left running (pid ${serverPid}`,
    );
    expect(await ledger()).toEqual(['one', 'slow', 'two']);
    expect(isRunning(rerunBy)).toBe(false);
  });

  it('skips the uncertain call with --on-uncertain skip: the ledger never gets it', async () => {
    const { id } = await killedDuringSlowCall();
    const resumed = await sandbox.run(['run', '--resume', id, '--yes', '--on-uncertain', 'skip']);
    expect(resumed.code, resumed.stderr).toBe(0);
    await writeFile(file('release'), '');
    await pause(100);
    expect(await ledger()).toEqual(['one', 'two']);
  });

  it('stops the server on Ctrl+C, and a server that cannot start is an error naming it', async () => {
    const running = sandbox.start(['run', 'ledger.prompt.md', '--script', path.join(sandbox.root, 'script.yaml')]);
    const serverPid = Number(await waitForText('slow-started.txt'));
    running.child.kill('SIGINT');
    const interrupted = await running.done;
    expect(interrupted.code).toBe(130);
    expect(isRunning(serverPid)).toBe(false);

    await writeFile(file('.conclave.yaml'), 'mcp:\n  servers:\n    ledger:\n      command: ./no-such-server\n');
    const [session] = await sandbox.json<Array<{ id: string }>>(['sessions', 'list']);
    const failed = await sandbox.run(['run', '--resume', session?.id ?? '', '--yes', '--on-uncertain', 'skip']);
    expect(failed.code).toBe(69);
    expect(failed.stderr).toContain('MCP server "ledger" (`./no-such-server`) could not be started');
    expect(existsSync(file('release'))).toBe(false);
  });
});

describe('conclave --mode orchestrated --mcp', () => {
  it("gives the lead the named servers' tools, and refuses a server the config does not define", async () => {
    const script = path.join(sandbox.root, 'orchestrated.yaml');
    await writeLines(script, [
      '- agent: lead',
      '  tool_calls: [{ name: ledger__append, args: { text: one } }]',
      '- agent: lead',
      '  text: Done.',
    ]);
    const result = await sandbox.run(withLedger(script, 'Keep the ledger'));
    expect(result.code, result.stderr).toBe(0);
    expect(await ledger()).toEqual(['one']);

    const unknown = await sandbox.run(['--mode', 'orchestrated', '--mcp', 'ledgr', '--script', script, 'Keep it']);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('unknown MCP server: ledgr');
    expect(unknown.stderr).toContain('Configured servers: ledger');
  });
});

describe('conclave with an MCP server over streamable HTTP', () => {
  it('sends the header filled in from the environment and keeps the credential out of the store, whatever it is called', async () => {
    const { serveHttp } = (await import(serverScript)) as {
      serveHttp: (directory: string) => Promise<{ url: string; close: () => Promise<void> }>;
    };
    const http = await serveHttp(sandbox.workspace);
    try {
      await writeLines(file('.conclave.yaml'), [
        'mcp:',
        '  servers:',
        '    ledger:',
        `      url: ${http.url}`,
        `      headers: { Authorization: "Bearer $\{LEDGER_CREDENTIAL}" }`,
      ]);
      const script = path.join(sandbox.root, 'echo.yaml');
      await writeLines(script, [
        '- agent: lead',
        '  tool_calls: [{ name: ledger__echo_auth, args: {} }, { name: ledger__append, args: { text: one } }]',
        '- agent: lead',
        '  text: Done.',
      ]);
      const credential = 'c9f1e2d3b4a5-ledger';
      const result = await sandbox.run(withLedger(script, 'Who am I?'), { env: { LEDGER_CREDENTIAL: credential } });
      expect(result.code, result.stderr).toBe(0);
      expect(await ledger()).toEqual(['one']);
      const [session] = await sandbox.json<Array<{ id: string }>>(['sessions', 'list']);
      const shown = await sandbox.run(['sessions', 'show', session?.id ?? '', '--transcript']);
      expect(shown.stdout).toContain('you are [REDACTED]');
      const journal = readFileSync(path.join(sandbox.home, 'sessions', session?.id ?? '', 'journal.jsonl'), 'utf8');
      expect(journal).toContain('ledger__echo_auth');
      expect(journal).not.toContain(credential);
    } finally {
      await http.close();
    }
  });
});

describe('the MCP client', () => {
  /** The module files a command loads, as Node's load hook sees them. */
  async function modulesLoadedBy(args: string[]): Promise<string[]> {
    const hook = path.join(sandbox.root, 'record-loads.mjs');
    const log = path.join(sandbox.root, 'loaded.log');
    await writeLines(hook, [
      "import { appendFileSync } from 'node:fs';",
      "import { registerHooks } from 'node:module';",
      'registerHooks({',
      `  load(url, context, nextLoad) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return nextLoad(url, context); },`,
      '});',
    ]);
    await writeFile(log, '');
    const result = await sandbox.run(args, { env: { NODE_OPTIONS: `--import=${hook}` } });
    expect(result.code, result.stderr).toBe(0);
    return (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  }
  const mcpClient = (urls: string[]) => urls.filter((url) => /mcp-connection|modelcontextprotocol/.test(url));

  it('is loaded only by runs that use an MCP server: not by --version, sessions list or a resume without one', async () => {
    expect(mcpClient(await modulesLoadedBy(['--version']))).toEqual([]);
    const script = path.join(sandbox.root, 'plain.yaml');
    await writeLines(script, ['- agent: lead', '  text: Done.']);
    const plain = await sandbox.run(['--mode', 'orchestrated', '--script', script, 'Nothing to keep']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(mcpClient(await modulesLoadedBy(['sessions', 'list']))).toEqual([]);
    const [session] = await sandbox.json<Array<{ id: string }>>(['sessions', 'list']);
    expect(mcpClient(await modulesLoadedBy(['--resume', session?.id ?? '', 'And now?', '--script', script]))).toEqual(
      [],
    );

    const withServer = await modulesLoadedBy(withLedger(script, 'Keep it'));
    expect(mcpClient(withServer).length).toBeGreaterThan(0);
  });
});
