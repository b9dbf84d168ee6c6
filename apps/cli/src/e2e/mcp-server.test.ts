// End-to-end: `conclave mcp` as a real stdio child process of the built CLI, driven by the MCP
// SDK's own Client: the tools it offers (read-only unless --allow-runs) with honest annotations,
// what each returns, and errors as tool errors with the CLI's own text.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_PATH } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
}

const textOf = (result: unknown) => (result as ToolResult).content.map((part) => part.text).join('\n');

describe('conclave mcp', () => {
  const sandbox = sandboxFixture('all');
  let client: Client | null = null;
  let completedId = '';
  let interruptedId = '';
  let waitingId = '';

  const connect = async (args: string[] = [], env: Record<string, string> = {}) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_PATH, 'mcp', ...args],
      env: { ...sandbox.env, ...env },
      cwd: sandbox.workspace,
      stderr: 'pipe',
    });
    client = new Client({ name: 'conclave-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  };
  afterEach(async () => {
    await client?.close();
    client = null;
  });

  beforeAll(async () => {
    const completed = await sandbox.run(['Pick a database', '--max-rounds', '1']);
    completedId = /Session saved: ([0-9a-z]{22})/.exec(completed.stdout)?.[1] ?? '';
    const running = sandbox.start(['Plan the migration'], { env: { CONCLAVE_SCRIPTED_LATENCY_MS: '150' } });
    await running.waitFor(/round 1 · critic is speaking/);
    running.child.kill('SIGINT');
    interruptedId = /conclave --resume ([0-9a-z]{22})/.exec((await running.done).stderr)?.[1] ?? '';
    const script = path.join(sandbox.root, 'ask-script.yaml');
    await writeFile(
      script,
      [
        '- agent: lead',
        '  tool_calls:',
        '    - { name: ask_user, args: { question: "Which city is the offsite in?" } }',
        '- agent: lead',
        '  text: "Done: the offsite is planned."',
        '',
      ].join('\n'),
    );
    const asked = await sandbox.run(['--mode', 'orchestrated', '--script', script, 'Plan the offsite']);
    waitingId = /Session saved: ([0-9a-z]{22})/.exec(asked.stdout)?.[1] ?? '';
    expect([completedId, interruptedId, waitingId].every((id) => id.length === 22)).toBe(true);
  });

  it('offers only the read-only tools without --allow-runs, annotated as read-only', async () => {
    const connected = await connect();
    const { tools } = await connected.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['list_sessions', 'resume_plan', 'show_session']);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool.description?.length).toBeGreaterThan(40);
    }
    expect(connected.getInstructions()).toContain('--allow-runs');
    const refused = await connected.callTool({ name: 'answer', arguments: { session: waitingId, answer: 'Lisbon' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('answer');
  });

  it('lists sessions with the filters of sessions list', async () => {
    const connected = await connect();
    const all = JSON.parse(textOf(await connected.callTool({ name: 'list_sessions', arguments: {} }))) as {
      id: string;
      status: string;
    }[];
    expect(all.map((item) => item.id).sort()).toEqual([completedId, interruptedId, waitingId].sort());
    const waiting = JSON.parse(
      textOf(await connected.callTool({ name: 'list_sessions', arguments: { status: 'waiting' } })),
    ) as { id: string }[];
    expect(waiting.map((item) => item.id)).toEqual([waitingId]);
    const one = JSON.parse(textOf(await connected.callTool({ name: 'list_sessions', arguments: { limit: 1 } })));
    expect(one).toHaveLength(1);
    const archived = await connected.callTool({ name: 'list_sessions', arguments: { archived: true } });
    expect(JSON.parse(textOf(archived))).toEqual([]);
    const invalid = await connected.callTool({ name: 'list_sessions', arguments: { status: 'sleeping' } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('status');
  });

  it('shows a transcript and a resume plan', async () => {
    const connected = await connect();
    const shown = textOf(await connected.callTool({ name: 'show_session', arguments: { session: completedId } }));
    expect(shown).toContain('Pick a database');
    expect(shown).toContain('architect');
    const json = JSON.parse(
      textOf(await connected.callTool({ name: 'show_session', arguments: { session: completedId, format: 'json' } })),
    ) as { id: string; messages: unknown[] };
    expect(json.id).toBe(completedId);
    expect(json.messages.length).toBeGreaterThan(3);
    const plan = await connected.callTool({ name: 'resume_plan', arguments: { session: interruptedId } });
    expect(plan.isError).toBeFalsy();
    expect(textOf(plan)).toContain('Done, will be skipped');
    expect(textOf(plan)).toContain('Next: round 1');
  });

  it('answers errors as tool errors with the text the CLI prints', async () => {
    const connected = await connect();
    const cli = await sandbox.run(['--resume', completedId, '--dry-run']);
    const plan = await connected.callTool({ name: 'resume_plan', arguments: { session: completedId } });
    expect(plan.isError).toBe(true);
    expect(textOf(plan)).toContain(`Session ${completedId} is completed; there is nothing to resume.`);
    expect(textOf(plan)).toContain(
      cli.stderr
        .replace(/^Error: /, '')
        .trim()
        .split('\n')[0] ?? 'missing',
    );
    const missing = await connected.callTool({ name: 'show_session', arguments: { session: 'nosuchsession' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('nosuchsession');
    expect(textOf(missing)).toContain('exit code 66');
  });

  it('with --allow-runs answers a waiting session with the checks of conclave answer, and continues a completed one', async () => {
    const connected = await connect(['--allow-runs']);
    const { tools } = await connected.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual([
      'answer',
      'continue_session',
      'list_sessions',
      'resume_plan',
      'show_session',
    ]);
    expect(byName.answer?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.continue_session?.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });

    const question = await connected.callTool({ name: 'answer', arguments: { session: waitingId } });
    expect(textOf(question)).toBe('Which city is the offsite in?');
    const notWaiting = await connected.callTool({ name: 'answer', arguments: { session: completedId, answer: 'x' } });
    expect(notWaiting.isError).toBe(true);
    const cliRefusal = await sandbox.run(['answer', completedId, 'x']);
    expect(textOf(notWaiting)).toContain(
      cliRefusal.stderr
        .replace(/^Error: /, '')
        .trim()
        .split('\n')[0] ?? 'missing',
    );
    // A client's text is never read as an option: this is the answer, not a --by.
    const answered = await connected.callTool({
      name: 'answer',
      arguments: { session: waitingId, answer: '--by=mallory', by: 'the reviewer' },
    });
    expect(answered.isError, textOf(answered)).toBeFalsy();
    expect(textOf(answered)).toContain('Answered');
    const flagLike = await connected.callTool({ name: 'show_session', arguments: { session: '--json' } });
    expect(flagLike.isError).toBe(true);
    const again = await connected.callTool({ name: 'answer', arguments: { session: waitingId, answer: 'Porto' } });
    expect(again.isError).toBe(true);

    const followed = await connected.callTool({
      name: 'continue_session',
      arguments: { session: completedId, follow_up: 'What about cost?' },
    });
    expect(followed.isError, textOf(followed)).toBeFalsy();
    const result = JSON.parse(textOf(followed)) as { sessionId: string; status: string; conclusion: string };
    expect(result.status).toBe('completed');
    expect(result.conclusion.length).toBeGreaterThan(10);
    const child = await sandbox.json<{ parentId: string }>(['sessions', 'show', result.sessionId]);
    expect(child.parentId).toBe(completedId);
  });

  it('reports progress while a follow-up runs, so a client timeout shorter than the run is reset', async () => {
    // Each model call takes 400 ms; the whole follow-up (several calls) more than the client's 1.5 s timeout.
    const connected = await connect(['--allow-runs'], { CONCLAVE_SCRIPTED_LATENCY_MS: '400' });
    const progress: { progress: number; message?: string }[] = [];
    const started = Date.now();
    const followed = await connected.callTool(
      { name: 'continue_session', arguments: { session: completedId, follow_up: 'And the migration risks?' } },
      undefined,
      { timeout: 1500, resetTimeoutOnProgress: true, onprogress: (each) => progress.push(each) },
    );
    expect(Date.now() - started).toBeGreaterThan(1500);
    expect(followed.isError, textOf(followed)).toBeFalsy();
    expect((JSON.parse(textOf(followed)) as { status: string }).status).toBe('completed');
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.map((each) => each.progress)).toEqual(
      [...progress.map((each) => each.progress)].sort((a, b) => a - b),
    );
    expect(progress.some((each) => /model call .* done/.test(each.message ?? ''))).toBe(true);
  });

  it('sends no progress to a client that gave no progress token', async () => {
    const connected = await connect(['--allow-runs'], { CONCLAVE_SCRIPTED_LATENCY_MS: '100' });
    const notifications: unknown[] = [];
    connected.fallbackNotificationHandler = async (notification) => {
      notifications.push(notification);
    };
    const followed = await connected.callTool({
      name: 'continue_session',
      arguments: { session: completedId, follow_up: 'And the staffing?' },
    });
    expect(followed.isError, textOf(followed)).toBeFalsy();
    expect(notifications).toEqual([]);
  });

  it('stops a follow-up whose call the client cancelled (its timeout), leaving it resumable', async () => {
    const list = () => sandbox.json<{ id: string; parentId: string | null; status: string }[]>(['sessions', 'list']);
    const before = new Set((await list()).map((item) => item.id));
    const connected = await connect(['--allow-runs'], { CONCLAVE_SCRIPTED_LATENCY_MS: '400' });
    const timedOut = await connected
      .callTool(
        { name: 'continue_session', arguments: { session: completedId, follow_up: 'And the audit?' } },
        undefined,
        {
          timeout: 700,
        },
      )
      .catch((error: unknown) => error);
    expect(String(timedOut)).toContain('timed out');
    let child: { id: string; status: string } | undefined;
    for (let tries = 0; child?.status !== 'interrupted' && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      child = (await list()).find((item) => item.parentId === completedId && !before.has(item.id));
    }
    expect(child?.status).toBe('interrupted');
  });

  it('stops a follow-up still running when its client goes away, leaving it resumable', async () => {
    const list = () => sandbox.json<{ id: string; parentId: string | null; status: string }[]>(['sessions', 'list']);
    const before = new Set((await list()).map((item) => item.id));
    const connected = await connect(['--allow-runs'], { CONCLAVE_SCRIPTED_LATENCY_MS: '300' });
    const call = connected
      .callTool({ name: 'continue_session', arguments: { session: completedId, follow_up: 'And the backups?' } })
      .catch((error: unknown) => error);
    const childOf = async () => (await list()).find((item) => item.parentId === completedId && !before.has(item.id));
    let child = await childOf();
    for (let tries = 0; !child && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      child = await childOf();
    }
    expect(child?.status).toBe('running');
    // The client closes the server's stdin: the run stops at a checkpoint and the server exits.
    await connected.close();
    client = null;
    await call;
    const after = await sandbox.json<{ id: string; status: string }>(['sessions', 'show', child?.id ?? '']);
    expect(after.status).toBe('interrupted');
  });
});
