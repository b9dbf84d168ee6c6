// MCP tools in real runs: a real MCP server (the SDK's McpServer, __fixtures__/test-mcp-server.mjs)
// over stdio and streamable HTTP, a lead whose script calls its tools, interrupts in the middle.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UncertainStepError, type UncertainStepInfo } from '@resume/core/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatResumePlan } from '../resume/format-resume-plan.js';
import type { RunnerOptions } from '../runner/runner.js';
import { createFakeModels, createTestStore, until } from '../runner/test-kit.js';
import { runnerFixture } from '../testing/runner-fixture.js';
import type { McpServerConfig } from './mcp-server-config.js';

const serverScript = fileURLToPath(new URL('./__fixtures__/test-mcp-server.mjs', import.meta.url));
const { serveHttp } = (await import(serverScript)) as {
  serveHttp: (
    directory: string,
    options?: { onHeaders?: (headers: Record<string, unknown>) => void },
  ) => Promise<{ url: string; close: () => Promise<void> }>;
};

const fixture = runnerFixture({ name: 'mcp' });
let currentStore: ReturnType<typeof createTestStore>;
beforeEach(() => {
  currentStore = createTestStore();
});

const stdioServer = (env: Record<string, string> = {}): McpServerConfig => ({
  command: process.execPath,
  args: [serverScript],
  env,
});

type Turn = { text: string; toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }> };
const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, args });

function runnerFor(
  leadScript: Turn[],
  servers: Record<string, McpServerConfig>,
  more: Partial<RunnerOptions> & { interruptAt?: string } = {},
) {
  const { interruptAt, ...options } = more;
  const runnerOptions: RunnerOptions = {
    engine: currentStore.engine(),
    models: createFakeModels({ leadScript }).resolve,
    workspaceDir: fixture.workspace,
    mcp: { servers, ...(options.mcp?.maxOutputBytes ? { maxOutputBytes: options.mcp.maxOutputBytes } : {}) },
    ...options,
  };
  if (options.mcp) runnerOptions.mcp = { ...options.mcp, servers };
  return interruptAt ? fixture.runnerInterruptedAt(interruptAt, runnerOptions) : fixture.runner(runnerOptions);
}

const start = (runner: ReturnType<typeof runnerFor>, mcp = ['ledger']) =>
  runner.start({ mode: 'orchestrated', task: 'Keep the ledger', options: { mcp } });

const linesOf = async (file: string) =>
  (await readFile(fixture.path(file), 'utf8').catch(() => '')).split('\n').filter(Boolean);

const ledgerScript: Turn[] = [
  {
    text: 'Looking up and writing.',
    toolCalls: [call('c1', 'ledger__lookup', { key: 'a' }), call('c2', 'ledger__append', { text: 'one' })],
  },
  { text: 'Writing more.', toolCalls: [call('c3', 'ledger__append', { text: 'two' })] },
];

describe('MCP tools over stdio', () => {
  it('are offered as <server>__<tool>, journaled with their arguments and results, and not called again on resume', async () => {
    const interrupted = await start(
      runnerFor(ledgerScript, { ledger: stdioServer() }, { interruptAt: 'turn 2, lead' }),
    );
    expect(interrupted.status).toBe('interrupted');
    expect(await linesOf('ledger.txt')).toEqual(['one']);

    const resumed = await runnerFor(ledgerScript, { ledger: stdioServer() }).resume(interrupted.sessionId);
    expect(resumed.status, String(resumed.error)).toBe('completed');
    expect(await linesOf('ledger.txt')).toEqual(['one', 'two']);
    expect(await linesOf('lookups.log')).toEqual(['a']);
    const state = await currentStore.engine().readSession(interrupted.sessionId);
    expect(state.toolCalls.map((entry) => [entry.name, entry.args, entry.result])).toEqual([
      ['ledger__lookup', { key: 'a' }, 'found a'],
      ['ledger__append', { text: 'one' }, 'appended one'],
      ['ledger__append', { text: 'two' }, 'appended two'],
    ]);
  });

  it('re-runs an interrupted read-only call on resume without asking', async () => {
    const script: Turn[] = [{ text: 'Looking slowly.', toolCalls: [call('c1', 'ledger__slow_lookup', { key: 'k' })] }];
    const runner = runnerFor(script, { ledger: stdioServer() });
    const running = start(runner);
    await until(() => existsSync(fixture.path('slow-started.txt')), 100_000);
    await runner.interrupt();
    expect((await running).status).toBe('interrupted');
    await writeFile(fixture.path('release'), '');
    const asked: UncertainStepInfo[] = [];
    const resumed = await runnerFor(
      script,
      { ledger: stdioServer() },
      {
        decisions: {
        uncertainStep: (step) => {
          asked.push(step);
          return 'abort';
        },
      },
      },
    ).resume((await running).sessionId);
    expect(resumed.status, String(resumed.error)).toBe('completed');
    expect(asked).toEqual([]);
    expect(await linesOf('lookups.log')).toEqual(['k']);
  });

  it('never re-runs an interrupted unsafe call without a decision, and runs it once more when told to', async () => {
    const script: Turn[] = [
      { text: 'Writing.', toolCalls: [call('c1', 'ledger__append', { text: 'one' })] },
      { text: 'Writing slowly.', toolCalls: [call('c2', 'ledger__slow_append', { text: 'slow' })] },
    ];
    const runner = runnerFor(script, { ledger: stdioServer() });
    const running = start(runner);
    await until(() => existsSync(fixture.path('slow-started.txt')), 100_000);
    await runner.interrupt();
    const { sessionId, status } = await running;
    expect(status).toBe('interrupted');

    await expect(runnerFor(script, { ledger: stdioServer() }).resume(sessionId)).rejects.toSatisfy(
      (error) => UncertainStepError.isInstance(error) && /ledger__slow_append/.test((error as Error).message),
    );
    await writeFile(fixture.path('release'), '');
    const asked: string[] = [];
    const resumed = await runnerFor(
      script,
      { ledger: stdioServer() },
      {
        decisions: {
        uncertainStep: (step) => {
          asked.push(step.key);
          return 'rerun';
        },
      },
      },
    ).resume(sessionId);
    expect(resumed.status, String(resumed.error)).toBe('completed');
    expect(asked).toEqual(['turn-2/tool-1/ledger__slow_append']);
    expect(await linesOf('ledger.txt')).toEqual(['one', 'slow']);
  });
});
