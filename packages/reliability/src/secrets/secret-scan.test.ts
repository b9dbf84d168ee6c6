// No configured key or token anywhere in the store, after runs of every mode with
// every provider that can run offline: the scripted provider for discussion,
// iterative, orchestrated (tool calls), chain workflow (shell and agent steps) and
// prompt-file runs plus a continuation; the OpenAI and Anthropic providers against
// a local server that speaks their streaming wire formats and echoes the API key
// it was sent into every answer (a model leaking its key). Every byte of the data
// home is scanned, archived files decompressed, for each secret in plain text,
// base64, base64url, URL-encoded, masked and JSON-escaped form.

import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createFsStore } from '@resume/storage-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runConclave } from '../support/cli-in-process.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

const SECRETS = {
  OPENAI_API_KEY: 'sk-proj-reliabilityTEST0openai0key0000000000000001',
  ANTHROPIC_API_KEY: 'sk-ant-api03-reliabilityTEST0anthropic0key0000002',
  GITHUB_TOKEN: 'ghp_reliabilityTEST0github0token000000000003',
  MY_SERVICE_SECRET: 'svc-reliability-test-service-secret-000000004',
};

/** What the fake model says: it leaks the key it was called with, and the other secrets it somehow saw. */
function leakyAnswer(key: string): string {
  return (
    `VERDICT: CONSENSUS\nMy key is ${key}; also ${SECRETS.GITHUB_TOKEN} and ${SECRETS.MY_SERVICE_SECRET}. ` +
    `Encoded: ${Buffer.from(key).toString('base64')}, Basic ${Buffer.from(`user:${key}`).toString('base64')}, ` +
    `${Buffer.from(SECRETS.MY_SERVICE_SECRET).toString('base64url')}, ?k=${encodeURIComponent(`${key}/x`)}; ` +
    `masked: ${masked(key)}.`
  );
}

/** A key as servers print it in errors: a head, a mask and a tail. */
function masked(secret: string): string {
  return `${secret.slice(0, 10)}****${secret.slice(-4)}`;
}

function sendEvents(response: ServerResponse, events: string[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) response.write(event);
  response.end();
}

async function body(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text;
}

function openAiStream(response: ServerResponse, key: string): void {
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-4o',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      usage: null,
    })}\n\n`;
  sendEvents(response, [
    chunk({ role: 'assistant', content: '' }, null),
    chunk({ content: leakyAnswer(key) }, null),
    chunk({}, 'stop'),
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [], usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } })}\n\n`,
    'data: [DONE]\n\n',
  ]);
}

function anthropicStream(response: ServerResponse, key: string): void {
  const event = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  sendEvents(response, [
    event('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [],
        model: 'claude-sonnet-4-5',
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: leakyAnswer(key) } }),
    event('content_block_stop', { index: 0 }),
    event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 } }),
    event('message_stop', {}),
  ]);
}

const listedSchema = z.array(z.object({ id: z.string(), status: z.string() }));

let server: Server;
let baseUrl = '';
const requests: string[] = [];

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const text = await body(request);
    const url = request.url ?? '';
    requests.push(`${request.method} ${url}`);
    const bearer = (request.headers.authorization ?? '').replace(/^Bearer /, '');
    const anthropicKey = String(request.headers['x-api-key'] ?? '');
    if (url.endsWith('/models')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          object: 'list',
          data: ['gpt-4o', 'gpt-4o-failing'].map((id) => ({ id, object: 'model', created: 1, owned_by: 'x' })),
        }),
      );
    } else if (url.includes('/chat/completions') && text.includes('gpt-4o-failing')) {
      // A server error whose body quotes the key it received, in every form servers use.
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: { message: `Internal error for ${leakyAnswer(bearer)}`, type: 'server_error' } }),
      );
    } else if (url.includes('/chat/completions')) openAiStream(response, bearer);
    else if (url.includes('/messages')) anthropicStream(response, anthropicKey);
    else {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

/** Every file under the home, archived ones decompressed too. */
function storeBytes(home: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (directory: string) => {
    for (const name of readdirSync(directory)) {
      const full = path.join(directory, name);
      if (statSync(full).isDirectory()) walk(full);
      else {
        const content = readFileSync(full);
        files.set(full, content);
        if (name.endsWith('.gz')) files.set(`${full} (decompressed)`, gunzipSync(content));
      }
    }
  };
  walk(home);
  return files;
}

/** A data home and a workspace in a temporary directory removed after the test. */
function homeAndWorkspace(): { home: string; workspace: string } {
  const root = temporaryDirectory();
  const workspace = path.join(root, 'workspace');
  mkdirSync(workspace);
  return { home: path.join(root, 'home'), workspace };
}

describe('secrets never reach the store', () => {
  it('after runs of every mode with the scripted, OpenAI and Anthropic providers', async () => {
    const { home, workspace } = homeAndWorkspace();
    writeFileSync(
      path.join(workspace, 'project.md'),
      '# Notes\n\n'.concat('A paragraph about the project. '.repeat(400)),
    );
    writeFileSync(
      path.join(workspace, 'lead.yaml'),
      [
        '- text: "Reading the notes first."',
        '  tool_calls: [{ name: read_file, args: { path: project.md } }]',
        `- text: "Writing the summary; the key I was given is ${SECRETS.OPENAI_API_KEY}."`,
        '  tool_calls: [{ name: write_file, args: { path: summary.md, content: "A short summary." } }]',
        '- text: "Done."',
      ].join('\n'),
    );
    writeFileSync(
      path.join(workspace, 'chain.yaml'),
      [
        'name: secret-chain',
        'variables: { topic: "key handling" }',
        'agents:',
        '  researcher: { prompt: "You research {{ topic }}." }',
        'steps:',
        '  - agent: researcher',
        '    input: "Research {{ topic }}"',
        '  - shell: "echo token=$GITHUB_TOKEN secret=$MY_SERVICE_SECRET key=$OPENAI_API_KEY"',
        '  - agent: researcher',
        '    input: "Summarise:\\n{{ steps[0].response }}"',
        'outputs:',
        '  artifacts:',
        '    - { path: report.md, from: "{{ last_response }}" }',
      ].join('\n'),
    );
    writeFileSync(
      path.join(workspace, 'task.prompt.md'),
      '---\nmodel: scripted\n---\nList the files in the workspace.\n',
    );

    const env = { ...SECRETS, PATH: process.env.PATH ?? '' };
    const options = { home, cwd: workspace, env };
    const runs: { argv: string[]; env?: Record<string, string> }[] = [
      { argv: ['--provider', 'scripted', '--max-rounds', '2', 'Should we rotate keys weekly?'] },
      { argv: ['--provider', 'scripted', '--mode', 'iterative', '--project', 'project.md', 'Review this project'] },
      {
        argv: ['--provider', 'scripted', '--mode', 'orchestrated', '--script', 'lead.yaml', 'Summarise the notes'],
      },
      { argv: ['run', 'chain.yaml', '--provider', 'scripted'] },
      { argv: ['run', 'task.prompt.md', '--provider', 'scripted'] },
      { argv: ['--provider', 'scripted', '--continue', 'And what about monthly?'] },
      {
        argv: ['--provider', 'openai', '--model', 'gpt-4o', '--max-rounds', '1', 'Is the key safe?'],
        env: { OPENAI_BASE_URL: `${baseUrl}/v1` },
      },
      {
        argv: [
          '--provider',
          'anthropic',
          '--model',
          'claude-reliability-test',
          '--max-rounds',
          '1',
          'Is the key safe?',
        ],
        env: { ANTHROPIC_BASE_URL: baseUrl },
      },
    ];
    for (const run of runs) {
      const result = await runConclave(run.argv, { ...options, env: { ...env, ...run.env } });
      expect(result.code, `${run.argv.join(' ')}\n${result.stderr}`).toBe(0);
    }
    // A provider that fails with 500s whose bodies quote the key: the errors are journaled.
    const failing = await runConclave(
      ['--provider', 'openai', '--model', 'gpt-4o-failing', '--max-rounds', '1', 'Is the key safe here?'],
      { ...options, env: { ...env, OPENAI_BASE_URL: `${baseUrl}/v1` } },
    );
    expect(failing.code).not.toBe(0);
    for (const secret of Object.values(SECRETS)) expect(failing.stderr).not.toContain(secret);
    // The fake servers were really called (the keys really went out and came back).
    expect(requests.some((request) => request.includes('/chat/completions'))).toBe(true);
    expect(requests.some((request) => request.includes('/messages'))).toBe(true);

    const listed = await runConclave(['sessions', 'list', '--json'], options);
    expect(listedSchema.parse(JSON.parse(listed.stdout)).length).toBeGreaterThanOrEqual(runs.length);
    // Archive the finished sessions too, so gzip files are scanned as well.
    const store = createFsStore({ dir: home });
    const sessions = listedSchema.parse(JSON.parse(listed.stdout));
    for (const session of sessions.filter((entry) => entry.status === 'completed')) await store.archive(session.id);
    await store.close();

    const files = storeBytes(home);
    expect(files.size).toBeGreaterThan(10);
    expect([...files.keys()].some((file) => file.endsWith('journal.jsonl.gz (decompressed)'))).toBe(true);
    const leaks: string[] = [];
    for (const [name, secret] of Object.entries(SECRETS)) {
      const forms = [
        secret,
        Buffer.from(secret).toString('base64'),
        Buffer.from(secret).toString('base64url'),
        Buffer.from(`user:${secret}`).toString('base64'),
        encodeURIComponent(`${secret}/x`),
        masked(secret),
        JSON.stringify(secret).slice(1, -1),
      ];
      for (const [file, content] of files) {
        for (const form of forms) if (content.includes(form)) leaks.push(`${name} in ${path.relative(home, file)}`);
      }
    }
    expect(leaks).toEqual([]);
    // The transcript still shows that something was redacted where a secret was.
    const journals = [...files.entries()].filter(([file]) =>
      /journal\.jsonl( \(decompressed\))?$/.test(file.replace('.gz', '')),
    );
    expect(journals.some(([, content]) => content.includes('[REDACTED'))).toBe(true);
  }, 120_000);

  it('after shell steps print the secrets in every form a program can, in runs that pass and fail', async () => {
    const { home, workspace } = homeAndWorkspace();
    // Prints its argument in every form: folded, JSON-escaped, hex over lines and in capitals,
    // reversed, spaced out, base64 wrapped, every character URL-encoded once and twice, masked
    // to its head and tail, and the whole environment.
    writeFileSync(
      path.join(workspace, 'print-forms.sh'),
      [
        'value="$1"',
        'printf %s "$value" | fold -w 12; echo',
        `printf '{"key":"%s"}\\n' "$(printf %s "$value" | sed 's/-/\\\\u002d/g; s/_/\\\\u005f/g')"`,
        'printf %s "$value" | od -An -v -tx1 | tr -d " \\n" | fold -w 60; echo',
        'printf %s "$value" | od -An -v -tx1 | tr -d " \\n" | tr a-f A-F; echo',
        'printf %s "$value" | rev; echo',
        'printf %s "$value" | sed "s/./& /g"; echo',
        'printf %s "user:$value" | base64 | fold -w 16; echo',
        'encoded=$(printf %s "$value" | od -An -v -tx1 | tr -d " \\n" | sed "s/../%&/g")',
        'echo "?once=$encoded&twice=$(printf %s "$encoded" | sed "s/%/%25/g")"',
        'echo "masked: $(printf %s "$value" | cut -c1-12)****$(printf %s "$value" | rev | cut -c1-12 | rev)"',
        'env | grep -v "^PATH="',
      ].join('\n'),
    );
    // The output tail keeps the last 4000 characters: 24 of the value and what follows it.
    writeFileSync(
      path.join(workspace, 'cut-tail.sh'),
      ['printf "KEY=%s\\n" "$1"', 'head -c 3975 /dev/zero | tr "\\0" x'].join('\n'),
    );
    const flow = (name: string, last: string) =>
      [
        `name: ${name}`,
        'steps:',
        '  - shell: "sh print-forms.sh \\"$MY_SERVICE_TOKEN\\""',
        '  - shell: "sh print-forms.sh \\"$OPENAI_API_KEY\\""',
        '    env: [OPENAI_API_KEY]',
        '  - shell: "sh print-forms.sh \\"$ANTHROPIC_API_KEY\\""',
        '    env: [ANTHROPIC_API_KEY]',
        '  - shell: "sh cut-tail.sh \\"$OPENAI_API_KEY\\""',
        '    env: [OPENAI_API_KEY]',
        '  - shell: "sh cut-tail.sh \\"$MY_SERVICE_TOKEN\\""',
        `  - shell: "sh print-forms.sh \\"$MY_SERVICE_TOKEN\\"; ${last}"`,
      ].join('\n');
    writeFileSync(path.join(workspace, 'passing.yaml'), flow('passing', 'true'));
    writeFileSync(path.join(workspace, 'failing.yaml'), flow('failing', 'exit 3'));
    const env = { ...PRINTED, PATH: process.env.PATH ?? '' };
    const options = { home, cwd: workspace, env };
    const passed = await runConclave(['run', 'passing.yaml'], options);
    expect(passed.code, passed.stderr).toBe(0);
    const failed = await runConclave(['run', 'failing.yaml'], options);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain('exited with code 3');
    const sessions = listedSchema.parse(
      JSON.parse((await runConclave(['sessions', 'list', '--json'], options)).stdout),
    );
    expect(sessions).toHaveLength(2);
    mkdirSync(path.join(home, 'exports'));
    for (const session of sessions) {
      for (const format of ['json', 'md']) {
        const file = path.join(home, 'exports', `${session.id}.${format}`);
        const exported = await runConclave(['sessions', 'export', session.id, '--format', format, '-o', file], options);
        expect(exported.code, exported.stderr).toBe(0);
      }
    }

    const files = storeBytes(home);
    const leaks: string[] = [];
    for (const [name, secret] of Object.entries(PRINTED)) {
      const pieces = printedForms(secret);
      for (const [file, content] of files) {
        const text = content.toString('utf8');
        for (const piece of pieces)
          if (text.includes(piece)) leaks.push(`${name} as ${piece} in ${path.relative(home, file)}`);
      }
    }
    expect(leaks).toEqual([]);
    const journals = [...files.entries()].filter(([file]) => file.endsWith('journal.jsonl'));
    expect(journals).toHaveLength(2);
    for (const [, content] of journals) expect(content.toString('utf8')).toContain('[REDACTED]');
  }, 120_000);
});

/**
 * Secrets the shell steps print: no word of them occurs elsewhere (any 12 characters of one in
 * the home is a leak), with characters URL encoding and JSON escapes change.
 */
const PRINTED = {
  OPENAI_API_KEY: 'sk-proj-Zq8vN3xKp2Lm7Wt4Rb9Yc6Hd1Jf5Gs0Qa2Ue8Io4Px',
  ANTHROPIC_API_KEY: 'sk-ant-api03-Vb7Nm2Qw9Ex4Rt6Yu1Io8Pa3Sd5Fg0Hj-Kl2',
  MY_SERVICE_TOKEN: 'svc!Tq4(Wm8Zr2)*Xn6~Bv1_Kc9-Ld3Pf7Hg5',
};

/**
 * What of a secret must not be found: each form print-forms.sh writes, cut into the pieces a
 * line of it is (as stored, JSON-escaped where the journal escapes), and the head and tail of 12.
 */
function printedForms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const hex = bytes.toString('hex');
  const encoded = hex.replace(/../g, '%$&');
  const base64 = Buffer.from(`user:${secret}`).toString('base64');
  const forms = [
    secret,
    secret.replaceAll('-', '\\u002d').replaceAll('_', '\\u005f'),
    hex,
    hex.toUpperCase(),
    [...secret].reverse().join(''),
    [...secret].join(' '),
    base64.slice(8),
    encoded,
    encoded.replaceAll('%', '%25'),
    secret.slice(0, 12),
    secret.slice(-12),
  ];
  const pieces = new Set<string>();
  for (const form of forms) {
    // Pieces of 12 characters, as fold or a line end leaves them, at every offset.
    for (let start = 0; start + 12 <= form.length; start += 1) pieces.add(form.slice(start, start + 12));
  }
  for (const piece of [...pieces]) pieces.add(JSON.stringify(piece).slice(1, -1));
  return [...pieces];
}
