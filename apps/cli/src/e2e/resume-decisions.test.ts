// End-to-end: the decisions a resume or a continue needs before its first call, without a
// terminal. Models the provider no longer lists (scripted and the OpenAI wire format),
// every missing flag named in one message before anything is written, and a follow-up for
// a session that never reached a conclusion.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type FakeHttpServer, sse, startFakeHttpServer } from '@resume/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, createSandbox, type Sandbox } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? null;
const resumeIdFrom = (text: string) => /conclave --resume ([0-9a-z]{22})/.exec(text)?.[1] ?? '';

/** Every file of the store with its bytes: what "nothing was written" is checked against. */
function storeSnapshot(home: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(home, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(home, full)] = readFileSync(full, 'base64');
  }
  return files;
}

beforeAll(() => assertBuilt());

describe('conclave: a follow-up for a session that never finished', () => {
  const sandbox = sandboxFixture('all');

  it('refuses --continue "q" on an interrupted newest session without a terminal, naming the resume command', async () => {
    const running = sandbox.start(['Plan the database migration'], { env: { CONCLAVE_SCRIPTED_LATENCY_MS: '150' } });
    await running.waitFor(/round 1 · critic is speaking/);
    running.child.kill('SIGINT');
    const interrupted = await running.done;
    expect(interrupted.code).toBe(130);
    const id = resumeIdFrom(interrupted.stderr);
    // The interrupt message says where the run stopped.
    expect(interrupted.stderr).toContain(`✗ Interrupted; checkpoint saved at "round 1, `);

    const refused = await sandbox.run(['--continue', 'What about scale?']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain(`Session ${id}`);
    expect(refused.stderr).toContain('is interrupted');
    expect(refused.stderr).toContain(`conclave --resume ${id}`);
    expect(refused.stderr).not.toContain('You reached this conclusion');
    const list = await sandbox.json<{ id: string }[]>(['sessions', 'list']);
    expect(list.map((item) => item.id)).toEqual([id]);
  });

  it('--resume <list number> says which session the number named', async () => {
    const [first] = await sandbox.json<{ id: string }[]>(['sessions', 'list']);
    const planned = await sandbox.run(['--resume', '1', '--dry-run']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stderr).toContain(
      `→ Session 1 of \`conclave sessions list\` is ${first?.id} "Plan the database migration" (interrupted,`,
    );
  });
});

describe('conclave: every missing decision in one message', () => {
  const sandbox = sandboxFixture('all');

  it('names --yes, --on-conflict and --on-uncertain together before anything is written', async () => {
    await writeFile(path.join(sandbox.workspace, '.conclave.yaml'), 'tools:\n  allowCommands: [sh]\n');
    const script = path.join(sandbox.root, 'script.yaml');
    await writeFile(
      script,
      [
        '- agent: lead',
        '  tool_calls: [{ name: write_file, args: { path: notes.md, content: "from the session" } }]',
        '- agent: lead',
        '  tool_calls: [{ name: run_command, args: { command: "sh -c \'touch started; sleep 30\'" } }]',
        '- agent: lead',
        '  text: "Done."',
        '',
      ].join('\n'),
    );
    const running = sandbox.start(['--mode', 'orchestrated', '--script', script, 'Write and check the notes']);
    const started = path.join(sandbox.workspace, 'started');
    while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 50));
    running.child.kill('SIGKILL');
    await running.done;
    const [session] = await sandbox.json<{ id: string }[]>(['sessions', 'list']);
    const id = session?.id ?? '';
    await writeFile(path.join(sandbox.workspace, 'notes.md'), 'edited by hand');

    const before = storeSnapshot(sandbox.home);
    const undecided = await sandbox.run(['--resume', id]);
    expect(undecided.code).toBe(64);
    expect(undecided.stderr).toContain('3 decisions are missing');
    expect(undecided.stderr).toContain('--yes');
    expect(undecided.stderr).toContain('--on-conflict');
    expect(undecided.stderr).toContain('notes.md (modified)');
    expect(undecided.stderr).toContain('--on-uncertain');
    expect(undecided.stderr).toContain('run_command');
    expect(undecided.stderr).not.toContain('Resuming');
    expect(storeSnapshot(sandbox.home)).toEqual(before);

    const halfDecided = await sandbox.run(['--resume', id, '--yes', '--on-conflict', 'keep']);
    expect(halfDecided.code).toBe(64);
    expect(halfDecided.stderr).toContain('a decision is missing');
    expect(halfDecided.stderr).toContain('--on-uncertain');
    expect(halfDecided.stderr).not.toContain('--on-conflict');
    expect(storeSnapshot(sandbox.home)).toEqual(before);

    const decided = await sandbox.run(['--resume', id, '--yes', '--on-conflict', 'keep', '--on-uncertain', 'skip']);
    expect(decided.code, decided.stderr).toBe(0);
    expect(readFileSync(path.join(sandbox.workspace, 'notes.md'), 'utf8')).toBe('edited by hand');
  });
});

describe('conclave: models the provider no longer offers', () => {
  let sandbox: Sandbox;
  let server: FakeHttpServer | undefined;
  beforeAll(async () => {
    sandbox = await createSandbox();
  });
  afterAll(async () => {
    await server?.close();
    await sandbox.remove();
  });

  it('checks the recorded models before the first call of a resume: 69 naming the model and --models', async () => {
    const running = sandbox.start(['--models', 'gpt-4o,gpt-4o-mini', 'Plan the database migration'], {
      env: { CONCLAVE_SCRIPTED_LATENCY_MS: '150' },
    });
    await running.waitFor(/round 2 · architect is speaking/);
    running.child.kill('SIGINT');
    const interrupted = await running.done;
    expect(interrupted.code).toBe(130);
    const id = resumeIdFrom(interrupted.stderr);
    const callLog = path.join(sandbox.root, 'calls.jsonl');
    const offered = { CONCLAVE_SCRIPTED_MODELS: 'scripted,gpt-4o-mini,gpt-4.1', CONCLAVE_SCRIPTED_CALL_LOG: callLog };

    const before = storeSnapshot(sandbox.home);
    const unavailable = await sandbox.run(['--resume', id, '--yes'], { env: offered });
    expect(unavailable.code).toBe(69);
    expect(unavailable.stderr).toContain("Model 'gpt-4o' (used by architect)");
    expect(unavailable.stderr).toContain('--models');
    expect(unavailable.stderr).toContain('the provider lists: gpt-4o-mini, gpt-4.1, scripted');
    expect(existsSync(callLog)).toBe(false);
    expect(storeSnapshot(sandbox.home)).toEqual(before);

    const replaced = await sandbox.run(['--resume', id, '--yes', '--models', 'gpt-4.1,gpt-4o-mini'], { env: offered });
    expect(replaced.code, replaced.stderr).toBe(0);
    const models = readFileSync(callLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { model: string }).model);
    expect(models).not.toContain('gpt-4o');
    expect(models).toContain('gpt-4.1');
  });

  it('asks an OpenAI-compatible server for /models before a continue and makes no chat call when the model is gone', async () => {
    let offered = ['gpt-4o', 'gpt-4o-mini'];
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      sse({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'gpt-4o-2024-08-06',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
    server = await startFakeHttpServer((request) => {
      if (request.method === 'GET' && request.path.endsWith('/models'))
        return {
          json: { object: 'list', data: offered.map((id) => ({ id, object: 'model', created: 1, owned_by: 'x' })) },
        };
      return {
        events: [
          chunk({ role: 'assistant', content: 'VERDICT: CONSENSUS\nShip it in small steps.' }, null),
          chunk({}, 'stop'),
          sse({
            id: 'chatcmpl-1',
            object: 'chat.completion.chunk',
            created: 1,
            model: 'gpt-4o-2024-08-06',
            choices: [],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          }),
          'data: [DONE]',
        ],
      };
    });
    const env = { OPENAI_API_KEY: 'sk-test-key', OPENAI_BASE_URL: `${server.url}/v1` };
    const started = await sandbox.run(['--provider', 'openai', '--model', 'gpt-4o', '--max-rounds', '1', 'Pick a DB'], {
      env,
    });
    expect(started.code, started.stderr).toBe(0);
    const parentId = sessionIdFrom(started.stdout) ?? '';

    offered = ['gpt-4o-mini', 'o3-mini'];
    const requestsBefore = server.requests.length;
    const refused = await sandbox.run(['--resume', parentId, 'What about scale?'], { env });
    expect(refused.code, refused.stderr).toBe(69);
    expect(refused.stderr).toContain("'gpt-4o'");
    expect(refused.stderr).toContain('--models');
    const later = server.requests.slice(requestsBefore);
    expect(later.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /v1/models']);
  });
});
