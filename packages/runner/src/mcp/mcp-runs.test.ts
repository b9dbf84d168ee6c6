// MCP tools in real runs: a real MCP server (the SDK's McpServer, __fixtures__/test-mcp-server.mjs)
// over stdio and streamable HTTP, a lead whose script calls its tools, interrupts in the middle.
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type JsonValue,
  MODEL_SPECIFICATION_VERSION,
  type ToolCall,
  UncertainStepError,
  type UncertainStepInfo,
} from '@resume/core/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitCodeFor } from '../exit-codes/exit-codes.js';
import type { ModelResolver } from '../modes/mode-context.js';
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

type Turn = { text: string; toolCalls?: ToolCall[] };
const call = (id: string, name: string, args: Record<string, JsonValue>): ToolCall => ({ id, name, args });

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

/**
 * Waits until the server's slow call has started and returns the server's pid. Only a whole
 * positive pid counts: signalling pid 0 would reach this test's own process group.
 */
async function slowCallServerPid(): Promise<number> {
  const pidOf = () => {
    const written = existsSync(fixture.path('slow-started.txt'))
      ? Number(readFileSync(fixture.path('slow-started.txt'), 'utf8').trim())
      : 0;
    return Number.isInteger(written) && written > 1 ? written : null;
  };
  await until(() => pidOf() !== null, 100_000);
  return pidOf() as number;
}

/** Appends `one`, then `slow` with the call that waits for a file `release`. */
const slowScript: Turn[] = [
  { text: 'Writing.', toolCalls: [call('c1', 'ledger__append', { text: 'one' })] },
  { text: 'Writing slowly.', toolCalls: [call('c2', 'ledger__slow_append', { text: 'slow' })] },
];

/** Resumes with every uncertain step re-run, and says which steps were asked about. */
async function resumeRerunning(script: Turn[], sessionId: string) {
  const asked: string[] = [];
  const runner = runnerFor(
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
  );
  return { resumed: await runner.resume(sessionId), asked };
}

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
    await slowCallServerPid();
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
    const script = slowScript;
    const runner = runnerFor(script, { ledger: stdioServer() });
    const running = start(runner);
    await slowCallServerPid();
    await runner.interrupt();
    const { sessionId, status } = await running;
    expect(status).toBe('interrupted');

    await expect(runnerFor(script, { ledger: stdioServer() }).resume(sessionId)).rejects.toSatisfy(
      (error) => UncertainStepError.isInstance(error) && /ledger__slow_append/.test((error as Error).message),
    );
    await writeFile(fixture.path('release'), '');
    const { resumed, asked } = await resumeRerunning(script, sessionId);
    expect(resumed.status, String(resumed.error)).toBe('completed');
    expect(asked).toEqual(['turn-2/tool-1/ledger__slow_append']);
    expect(await linesOf('ledger.txt')).toEqual(['one', 'slow']);
  });
});

describe('the tool lists a session records', () => {
  it('are checked on resume: a tool gone or taking other input is in the plan and the compatibility check', async () => {
    const interrupted = await start(
      runnerFor(ledgerScript, { ledger: stdioServer() }, { interruptAt: 'turn 2, lead' }),
    );
    const state = await currentStore.engine().readSession(interrupted.sessionId);
    expect(state.data['mcp.tools']).toMatchObject({
      ledger: expect.arrayContaining([
        expect.objectContaining({ name: 'lookup', readOnly: true }),
        expect.objectContaining({ name: 'append', readOnly: false, idempotent: false }),
      ]),
    });

    const changed = runnerFor(ledgerScript, { ledger: stdioServer({ TEST_MCP_VARIANT: 'changed' }) });
    const plan = await changed.plan(interrupted.sessionId);
    expect(plan.changes.compatibility?.level).toBe('block');
    expect(plan.changes.compatibility?.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'mcp-tool-changed',
          tool: 'ledger__lookup',
          change: 'removed',
          level: 'block',
        }),
        expect.objectContaining({ kind: 'mcp-tool-changed', tool: 'ledger__append', change: 'schema-changed' }),
      ]),
    );
    const text = formatResumePlan(plan);
    expect(text).toContain(
      'MCP tool ledger__lookup is no longer offered by server ledger (the session called it once)',
    );
    expect(text).toContain('MCP tool ledger__append takes other input than when the session started');
    expect(text).toContain('--force');
  });

  it('an unchanged list resumes without findings', async () => {
    const interrupted = await start(
      runnerFor(ledgerScript, { ledger: stdioServer() }, { interruptAt: 'turn 2, lead' }),
    );
    const plan = await runnerFor(ledgerScript, { ledger: stdioServer() }).plan(interrupted.sessionId);
    expect(plan.changes.compatibility?.findings ?? []).toEqual([]);
  });
});

/** A header value as a config file writes it: the secret stays in the environment. */
const bearerFromEnvironment = ['Bearer $', '{TEST_MCP_TOKEN}'].join('');

describe('MCP tools over streamable HTTP', () => {
  let http: Awaited<ReturnType<typeof serveHttp>>;
  const seenHeaders: string[] = [];
  beforeEach(async () => {
    seenHeaders.length = 0;
    http = await serveHttp(fixture.workspace, {
      onHeaders: (headers) => seenHeaders.push(String(headers.authorization)),
    });
  });
  afterEach(async () => {
    await http.close();
  });

  it('sends the headers filled in from the environment, journals no secret, and resumes without calling again', async () => {
    const servers = { ledger: { url: http.url, headers: { Authorization: bearerFromEnvironment } } };
    const env = { TEST_MCP_TOKEN: 'tok-5f3a9c1e7b' };
    const interrupted = await start(runnerFor(ledgerScript, servers, { env, interruptAt: 'turn 2, lead' }));
    expect(interrupted.status, String(interrupted.error)).toBe('interrupted');
    const resumed = await runnerFor(ledgerScript, servers, { env }).resume(interrupted.sessionId);
    expect(resumed.status, String(resumed.error)).toBe('completed');
    expect(await linesOf('ledger.txt')).toEqual(['one', 'two']);
    expect(seenHeaders.length).toBeGreaterThan(0);
    expect(new Set(seenHeaders)).toEqual(new Set(['Bearer tok-5f3a9c1e7b']));
    const events: unknown[] = [];
    for await (const event of currentStore.store.read(interrupted.sessionId)) events.push(event);
    const journal = JSON.stringify(events);
    expect(journal).not.toContain('tok-5f3a9c1e7b');
  });

  it('refuses to start when a variable a header names is not set', async () => {
    const servers = { ledger: { url: http.url, headers: { Authorization: bearerFromEnvironment } } };
    const result = await start(runnerFor(ledgerScript, servers, { env: {} }));
    expect(result.status).toBe('failed');
    expect(result.error?.message).toContain('mcp.servers.ledger.headers.Authorization');
    expect(result.error?.message).toContain('TEST_MCP_TOKEN');
  });
});

describe('MCP tool output', () => {
  it('is cut at mcp.maxOutputBytes, the cut said in the transcript', async () => {
    const script: Turn[] = [{ text: 'Big.', toolCalls: [call('c1', 'ledger__big', { bytes: 5000 })] }];
    const result = await start(
      runnerFor(script, { ledger: stdioServer() }, { mcp: { servers: {}, maxOutputBytes: 1024 } }),
    );
    expect(result.status, String(result.error)).toBe('completed');
    const state = await currentStore.engine().readSession(result.sessionId);
    const message = state.messages.find((entry) => entry.role === 'tool');
    expect(message?.content).toBe(`${'x'.repeat(1024)}\n[output cut at 1024 of 5000 bytes (mcp.maxOutputBytes)]`);
  });
});

/**
 * A model for workflow agent steps: each agent asks for the calls `plan` lists for it, one turn
 * after the other (counted from its own tool results), then answers in words.
 */
function toolCallingModels(plan: Record<string, ToolCall[][]>): ModelResolver {
  return (agent) => ({
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider: 'fake',
    modelId: 'fake-model',
    async generate(request) {
      const answered = request.messages.filter((message) => message.role === 'tool').length;
      const turns = plan[agent.name] ?? [];
      let calls: ToolCall[] = [];
      for (let index = 0, seen = 0; index < turns.length; index += 1) {
        if (seen === answered) {
          calls = turns[index] ?? [];
          break;
        }
        seen += turns[index]?.length ?? 0;
      }
      const toolCalls = request.tools ? calls : [];
      const text = toolCalls.length > 0 ? 'Calling tools.' : `${agent.name} is done`;
      return {
        message: { role: 'assistant', content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
        toolCalls,
        usage: { inputTokens: 1, outputTokens: 1 },
        model: 'fake-model',
        finishReason: toolCalls.length > 0 ? 'tool-calls' : 'stop',
      };
    },
  });
}

describe('MCP tools in workflow agent steps', () => {
  it("are called by the spec's agents, each call a step, and not called again on resume", async () => {
    await writeFile(
      fixture.path('flow.yaml'),
      [
        'name: ledger',
        'mcp: [ledger]',
        'agents:',
        '  writer: { prompt: "You keep the ledger." }',
        'steps:',
        '  - id: write',
        '    agent: writer',
        '    input: Write one, then slow.',
        "  - shell: 'echo after >> after.txt'",
        '',
      ].join('\n'),
    );
    const models = toolCallingModels({
      writer: [[call('w1', 'ledger__append', { text: 'one' })], [call('w2', 'ledger__slow_append', { text: 'slow' })]],
    });
    const runner = runnerFor([], { ledger: stdioServer() }, { models });
    const running = runner.runWorkflow('flow.yaml');
    await slowCallServerPid();
    await runner.interrupt();
    const { sessionId, status } = await running;
    expect(status).toBe('interrupted');

    await writeFile(fixture.path('release'), '');
    const asked: string[] = [];
    const resumed = await runnerFor(
      [],
      { ledger: stdioServer() },
      {
        models,
        decisions: {
          uncertainStep: (step) => {
            asked.push(step.key);
            return 'rerun';
          },
        },
      },
    ).resume(sessionId);
    expect(resumed.status, String(resumed.error)).toBe('completed');
    expect(asked).toEqual(['step[write]/writer/turn-2/tool-1/ledger__slow_append']);
    expect(await linesOf('ledger.txt')).toEqual(['one', 'slow']);
    expect(await linesOf('after.txt')).toEqual(['after']);
    const state = await currentStore.engine().readSession(sessionId);
    expect(state.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      'appended one',
      'appended slow slowly',
    ]);
  });

  it('refuses a spec naming a server the config does not define, with the file and the key', async () => {
    await writeFile(fixture.path('flow.yaml'), "name: x\nmcp: [ledgr]\nsteps:\n  - shell: 'true'\n");
    await expect(runnerFor([], { ledger: stdioServer() }).runWorkflow('flow.yaml')).rejects.toMatchObject({
      message: expect.stringContaining('flow.yaml at mcp: unknown MCP server: ledgr'),
    });
  });
});

describe('MCP servers that fail', () => {
  it('one that cannot start is a typed error naming it; the session resumes once it is back', async () => {
    const broken = { ledger: { command: path.join(fixture.workspace, 'no-such-server') } };
    const failed = await start(runnerFor(ledgerScript, broken));
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'mcp-server-unavailable' });
    expect(exitCodeFor(failed.error)).toBe(69);
    expect(failed.error?.message).toContain('MCP server "ledger"');
    expect(failed.error?.message).toContain('could not be started');
    expect((await currentStore.engine().readSession(failed.sessionId)).status).toBe('interrupted');

    const resumed = await runnerFor(ledgerScript, { ledger: stdioServer() }).resume(failed.sessionId);
    expect(resumed.status, String(resumed.error)).toBe('completed');
    expect(await linesOf('ledger.txt')).toEqual(['one', 'two']);
  });

  it('one that dies during a call stops the run with a typed error; the call stays uncertain', async () => {
    const script = slowScript;
    const running = start(runnerFor(script, { ledger: stdioServer() }));
    process.kill(await slowCallServerPid(), 'SIGKILL');
    const failed = await running;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'mcp-server-unavailable' });
    expect(exitCodeFor(failed.error)).toBe(69);
    expect(failed.error?.message).toContain('MCP server "ledger"');
    expect(failed.error?.message).toContain('slow_append');

    await writeFile(fixture.path('release'), '');
    const { resumed, asked } = await resumeRerunning(script, failed.sessionId);
    expect(resumed.status, String(resumed.error)).toBe('completed');
    expect(asked).toEqual(['turn-2/tool-1/ledger__slow_append']);
    expect(await linesOf('ledger.txt')).toEqual(['one', 'slow']);
  });

  it('an unknown server name is refused before the session is created', async () => {
    await expect(start(runnerFor(ledgerScript, { ledger: stdioServer() }), ['ledgr'])).rejects.toMatchObject({
      message: 'mcp: unknown MCP server: ledgr',
      hint: expect.stringContaining('Configured servers: ledger (mcp.servers in .conclave.yaml).'),
    });
    expect(await currentStore.engine().listSessions()).toEqual([]);
  });
});

describe('MCP server processes', () => {
  it('are stopped when the run ends', async () => {
    const result = await start(runnerFor(ledgerScript, { ledger: stdioServer() }));
    expect(result.status, String(result.error)).toBe('completed');
    const state = await currentStore.engine().readSession(result.sessionId);
    const recorded = (state.data['mcp.processes'] as Record<string, { pid: number }>).ledger;
    expect(recorded?.pid).toBeGreaterThan(0);
    expect(isRunning(recorded?.pid ?? 0)).toBe(false);
  });
});

/** Whether a process still runs (a zombie waiting to be reaped does not). */
function isRunning(pid: number): boolean {
  try {
    return !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
