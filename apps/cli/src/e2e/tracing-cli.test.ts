// End-to-end: OpenTelemetry traces of real runs of the built CLI, sent over OTLP/HTTP to a
// local receiver: the spans and their GenAI attributes, a resume linked to the run it
// continues, content only when asked for, `sessions trace` from the journal, and nothing sent
// or loaded without the variables.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { moduleLoadLog } from './module-loads.js';
import { type OtlpReceiver, type ReceivedSpan, spansOfOtlpJson, startOtlpReceiver } from './otlp-receiver.js';
import { assertBuilt, type CliResult, type Sandbox } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? null;

/** Starts a slow discussion, stops it with `signal` once `when` is on stderr, and returns how it ended. */
async function stoppedDiscussion(
  sandbox: Sandbox,
  options: { when: RegExp; signal: 'SIGINT' | 'SIGKILL'; env?: Record<string, string> },
): Promise<CliResult> {
  const running = sandbox.start(['Plan the database migration'], {
    env: { CONCLAVE_SCRIPTED_LATENCY_MS: '150', ...options.env },
  });
  await running.waitFor(options.when);
  running.child.kill(options.signal);
  return running.done;
}

const resumeIdIn = (stderr: string) => /conclave --resume ([0-9a-z]{22})/.exec(stderr)?.[1] ?? '';

describe('conclave with an OTLP endpoint', () => {
  const sandbox = sandboxFixture();
  let receiver: OtlpReceiver;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(() => receiver.close());
  const otlp = (extra: Record<string, string> = {}) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    ...extra,
  });
  const byName = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

  it('sends a span for the run, each round and each model call, with the GenAI attributes and the session id on every span', async () => {
    const run = await sandbox.run(['Pick a database', '--max-rounds', '2'], { env: otlp() });
    expect(run.code, run.stderr).toBe(0);
    const id = sessionIdFrom(run.stdout) ?? '';
    const spans = receiver.spans();
    expect(receiver.requests.every((request) => request.path === '/v1/traces')).toBe(true);

    const [root] = byName(spans, 'conclave run');
    expect(root?.parentSpanId ?? '').toBe('');
    expect(root?.attributes).toMatchObject({ 'conclave.session.id': id, 'conclave.session.mode': 'discussion' });
    expect(root?.status.code).toBe(1);
    expect(root?.resource['service.name']).toBe('conclave');

    const rounds = spans.filter((span) => /^round \d$/.test(span.name));
    expect(rounds.map((span) => span.name).sort()).toEqual(['round 1', 'round 2']);
    expect(rounds.every((span) => span.parentSpanId === root?.spanId)).toBe(true);

    const calls = byName(spans, 'chat scripted');
    // Three agents and the judge, in each of two rounds.
    expect(calls).toHaveLength(8);
    for (const call of calls) {
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'scripted',
        'gen_ai.request.model': 'scripted',
        'conclave.cost.usd': 0,
      });
      expect(call.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(call.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      expect(rounds.map((round) => round.spanId)).toContain(call.parentSpanId);
      // No prompt or completion text unless asked for.
      expect(call.attributes['gen_ai.output.messages']).toBeUndefined();
    }
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(spans.every((span) => span.attributes['conclave.session.id'] === id)).toBe(true);
  });

  it('sends protobuf by default (OTLP over HTTP)', async () => {
    const run = await sandbox.run(['Pick a database', '--max-rounds', '1'], {
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/custom/traces` },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(receiver.requests.length).toBeGreaterThan(0);
    const [request] = receiver.requests;
    expect(request?.path).toBe('/custom/traces');
    expect(request?.headers['content-type']).toBe('application/x-protobuf');
    // Protobuf keeps strings as they are: the span names are in the body.
    expect(Buffer.concat(receiver.requests.map((each) => each.body)).toString('latin1')).toContain('chat scripted');
  });

  it('puts the redacted completion text on the spans only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true', async () => {
    const secret = 'sk-live-abcdefghijklmnopqrstuvwxyz0123';
    const run = await sandbox.run([`Pick a database, the key is ${secret}`, '--max-rounds', '1'], {
      env: otlp({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true', MY_API_KEY: secret }),
    });
    expect(run.code, run.stderr).toBe(0);
    const calls = byName(receiver.spans(), 'chat scripted');
    expect(calls.length).toBeGreaterThan(0);
    const output = JSON.parse(String(calls[0]?.attributes['gen_ai.output.messages'])) as {
      role: string;
      parts: { type: string; content: string }[];
    }[];
    expect(output[0]?.role).toBe('assistant');
    expect(output[0]?.parts[0]?.content.length).toBeGreaterThan(20);
    expect(JSON.stringify(receiver.spans())).not.toContain(secret);
  });

  it('puts the prompt each model call was given on its span with the switch, live and in sessions trace; never without it', async () => {
    const secret = 'sk-live-abcdefghijklmnopqrstuvwxyz0123';
    const callLog = path.join(sandbox.root, 'prompt-calls.jsonl');
    const content = { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true', MY_API_KEY: secret };
    const run = await sandbox.run([`Pick a queue, the key is ${secret}`, '--max-rounds', '1'], {
      env: otlp({ ...content, CONCLAVE_SCRIPTED_CALL_LOG: callLog }),
    });
    expect(run.code, run.stderr).toBe(0);
    const id = sessionIdFrom(run.stdout) ?? '';
    const given = (await readFile(callLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { agent: string; messageCount: number; lastMessage: string });
    type InputMessage = { role: string; parts: { type: string; content: string }[] };
    const live = byName(receiver.spans(), 'chat scripted').sort((a, b) =>
      a.startTimeUnixNano.localeCompare(b.startTimeUnixNano),
    );
    expect(live).toHaveLength(given.length);
    live.forEach((span, index) => {
      const input = JSON.parse(String(span.attributes['gen_ai.input.messages'])) as InputMessage[];
      // What the provider received: as many messages, the last one the same text.
      expect(input).toHaveLength(given[index]?.messageCount ?? -1);
      expect(input.at(-1)?.parts[0]?.content).toBe(given[index]?.lastMessage.replace(secret, '[REDACTED]'));
      expect(input[0]?.parts[0]?.content).toContain('Pick a queue');
      expect(String(span.attributes['gen_ai.system_instructions'])).toContain('"type":"text"');
    });
    expect(JSON.stringify(receiver.spans())).not.toContain(secret);

    // After the fact, from the journal and the kept copies: the same text.
    const traced = await sandbox.run(['sessions', 'trace', id], { env: content });
    const after = spansOfOtlpJson(JSON.parse(traced.stdout)).filter((span) => span.name === 'chat scripted');
    expect(after.map((span) => span.attributes['gen_ai.input.messages']).sort()).toEqual(
      live.map((span) => span.attributes['gen_ai.input.messages']).sort(),
    );
    const withoutSwitch = await sandbox.run(['sessions', 'trace', id]);
    expect(withoutSwitch.stdout).not.toContain('gen_ai.input.messages');

    // A run without the switch keeps no prompt: asking for content afterwards finds none.
    const plain = await sandbox.run(['Pick a cache', '--max-rounds', '1'], { env: otlp() });
    const plainId = sessionIdFrom(plain.stdout) ?? '';
    const journal = await readFile(path.join(sandbox.home, 'sessions', plainId, 'journal.jsonl'), 'utf8');
    expect(journal).not.toContain('promptBlob');
    const plainTrace = await sandbox.run(['sessions', 'trace', plainId], { env: content });
    expect(plainTrace.stdout).toContain('gen_ai.output.messages');
    expect(plainTrace.stdout).not.toContain('gen_ai.input.messages');
  });

  it('continues the trace on resume: the resumed run is in the same trace, linked to the interrupted run', async () => {
    const interrupted = await stoppedDiscussion(sandbox, {
      when: /round 2 · architect is speaking/,
      signal: 'SIGINT',
      env: otlp(),
    });
    expect(interrupted.code).toBe(130);
    const id = resumeIdIn(interrupted.stderr);
    // Flushed on Ctrl+C: the interrupted run's span and its finished model calls were sent.
    const first = byName(receiver.spans(), 'conclave run')[0];
    expect(first?.attributes['conclave.session.status']).toBe('interrupted');
    const callsBefore = byName(receiver.spans(), 'chat scripted').length;
    expect(callsBefore).toBeGreaterThanOrEqual(4);

    const resumed = await sandbox.run(['--resume', id, '--yes'], { env: otlp() });
    expect(resumed.code, resumed.stderr).toBe(0);
    const [resume] = byName(receiver.spans(), 'conclave resume');
    expect(resume?.traceId).toBe(first?.traceId);
    expect(resume?.links).toEqual([expect.objectContaining({ traceId: first?.traceId, spanId: first?.spanId })]);
    expect(resume?.attributes).toMatchObject({ 'conclave.session.id': id, 'conclave.run.resumed': true });
    // The resume makes only the calls the interrupted run had not finished.
    const callsAfter = byName(receiver.spans(), 'chat scripted').filter((span) => span.traceId === first?.traceId);
    expect(callsAfter.length - callsBefore).toBeLessThan(8);
    expect(callsAfter.every((span) => span.attributes['conclave.session.id'] === id)).toBe(true);
  });

  it('gives each map item its span, under its workflow step, with the item steps under it', async () => {
    await writeFile(path.join(sandbox.workspace, 'a.txt'), 'alpha');
    await writeFile(path.join(sandbox.workspace, 'b.txt'), 'beta');
    const spec = path.join(sandbox.workspace, 'map.yaml');
    await writeFile(
      spec,
      [
        'name: items',
        'agents:',
        '  reviewer: { prompt: "Review." }',
        'steps:',
        '  - id: review',
        '    map:',
        '      items: { glob: "*.txt" }',
        '      do:',
        '        - id: read',
        '          shell: cat "$CONCLAVE_ITEM_ID"',
        '        - id: note',
        '          agent: reviewer',
        '          input: "Review {{ steps.read.output }}"',
        '',
      ].join('\n'),
    );
    const run = await sandbox.run(['run', spec], { env: otlp() });
    expect(run.code, run.stderr).toBe(0);
    const spans = receiver.spans();
    const [step] = byName(spans, 'workflow step review');
    expect(step).toBeDefined();
    const items = spans.filter((span) => span.name.startsWith('item '));
    expect(items.map((span) => span.attributes['conclave.map.item']).sort()).toEqual(['a.txt', 'b.txt']);
    expect(items.every((span) => span.parentSpanId === step?.spanId)).toBe(true);
    for (const item of items) {
      const children = spans.filter((span) => span.parentSpanId === item.spanId);
      expect(children.map((span) => span.name).sort()).toEqual(['chat scripted', expect.stringMatching(/read/)]);
    }
  });

  it('gives each tool call its span under the turn that asked for it, and links a follow-up to its parent', async () => {
    const script = path.join(sandbox.root, 'tools.yaml');
    await writeFile(
      script,
      [
        '- agent: lead',
        '  tool_calls:',
        '    - { name: write_file, args: { path: out.txt, content: "hello" } }',
        '- agent: lead',
        '  text: "Done."',
        '',
      ].join('\n'),
    );
    const run = await sandbox.run(['--mode', 'orchestrated', '--script', script, 'Write out.txt'], { env: otlp() });
    expect(run.code, run.stderr).toBe(0);
    const id = sessionIdFrom(run.stdout) ?? '';
    const spans = receiver.spans();
    const [tool] = byName(spans, 'execute_tool write_file');
    expect(tool?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'write_file',
      'conclave.session.id': id,
    });
    expect(tool?.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    const [turn] = byName(spans, 'turn 1');
    expect(tool?.parentSpanId).toBe(turn?.spanId);
    // The tool's own durable step runs under its call.
    expect(spans.some((span) => span.parentSpanId === tool?.spanId && span.name.startsWith('step '))).toBe(true);

    const followUp = await sandbox.run(['--resume', id, 'And a second file?'], { env: otlp() });
    expect(followUp.code, followUp.stderr).toBe(0);
    const childId = sessionIdFrom(followUp.stdout) ?? '';
    const [parentRun] = byName(spans, 'conclave run');
    const childRun = byName(receiver.spans(), 'conclave run').find(
      (span) => span.attributes['conclave.session.id'] === childId,
    );
    expect(childRun?.traceId).not.toBe(parentRun?.traceId);
    expect(childRun?.attributes['conclave.session.parent_id']).toBe(id);
    expect(childRun?.links).toEqual([
      expect.objectContaining({ traceId: parentRun?.traceId, spanId: parentRun?.spanId }),
    ]);
  });

  it('keeps what a tool answered, its errors too, off the spans unless content is asked for', async () => {
    const script = path.join(sandbox.root, 'missing.yaml');
    await writeFile(
      script,
      [
        '- agent: lead',
        '  tool_calls:',
        '    - { name: read_file, args: { path: private-notes.txt } }',
        '- agent: lead',
        '  text: "Done."',
        '',
      ].join('\n'),
    );
    const quiet = await sandbox.run(['--mode', 'orchestrated', '--script', script, 'Read the notes'], { env: otlp() });
    expect(quiet.code, quiet.stderr).toBe(0);
    const [failed] = byName(receiver.spans(), 'execute_tool read_file');
    expect(failed?.status.code).toBe(2);
    expect(JSON.stringify(receiver.spans())).not.toContain('private-notes');

    receiver.requests.length = 0;
    const captured = await sandbox.run(['--mode', 'orchestrated', '--script', script, 'Read the notes'], {
      env: otlp({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }),
    });
    expect(captured.code, captured.stderr).toBe(0);
    const [shown] = byName(receiver.spans(), 'execute_tool read_file');
    expect(shown?.attributes['gen_ai.tool.call.arguments']).toContain('private-notes.txt');
    expect(shown?.status.message).toContain('private-notes.txt');
  });

  it('says on stderr when the spans cannot be sent, and the run still succeeds', async () => {
    await receiver.close();
    const run = await sandbox.run(['Pick a database', '--max-rounds', '1'], {
      env: otlp({ OTEL_EXPORTER_OTLP_TIMEOUT: '2000' }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`traces could not all be sent to ${receiver.url}`);
    receiver = await startOtlpReceiver();
  });

  it('refuses the gRPC protocol with a message that says what to set', async () => {
    const run = await sandbox.run(['Pick a database', '--max-rounds', '1'], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported');
    expect(run.stderr).toContain('http/protobuf');
    expect(receiver.requests).toHaveLength(0);
  });

  it('sends nothing and loads no OpenTelemetry module without the variables', async () => {
    const loads = await moduleLoadLog(sandbox.root);
    const env = loads.env;
    const interrupted = await stoppedDiscussion(sandbox, {
      when: /round 1 · critic is speaking/,
      signal: 'SIGINT',
      env,
    });
    const id = resumeIdIn(interrupted.stderr);
    const resumed = await sandbox.run(['--resume', id, '--yes'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await sandbox.run(['--version'], { env })).code).toBe(0);
    const modules = await loads.read();
    expect(modules).toContain('conclave.mjs');
    expect(modules).not.toContain('opentelemetry');
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('conclave sessions trace', () => {
  const sandbox = sandboxFixture();

  it('writes the whole history of a session recorded without tracing as OTLP JSON, the same every time', async () => {
    const interrupted = await stoppedDiscussion(sandbox, { when: /round 2 · architect is speaking/, signal: 'SIGINT' });
    const id = resumeIdIn(interrupted.stderr);
    expect((await sandbox.run(['--resume', id, '--yes'])).code).toBe(0);

    const file = path.join(sandbox.root, 'trace.json');
    const written = await sandbox.run(['sessions', 'trace', id, '-o', file]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toContain(file);
    const text = await readFile(file, 'utf8');
    const spans = spansOfOtlpJson(JSON.parse(text));
    const [first] = spans.filter((span) => span.name === 'conclave run');
    const [resume] = spans.filter((span) => span.name === 'conclave resume');
    expect(first?.attributes['conclave.session.status']).toBe('interrupted');
    expect(resume?.links[0]?.spanId).toBe(first?.spanId);
    expect(spans.filter((span) => span.name === 'chat scripted').length).toBeGreaterThanOrEqual(8);
    expect(spans.every((span) => span.attributes['conclave.session.id'] === id)).toBe(true);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);

    // Derived from the journal alone: written again, byte for byte the same.
    expect((await sandbox.run(['sessions', 'trace', id, '-o', file, '--force'])).code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(text);
    const stdout = await sandbox.run(['sessions', 'trace', id]);
    expect(stdout.stdout.trim()).toBe(text.trim());
  });

  it('ends a run killed outright at its last journaled event, and marks the resume as after a crash', async () => {
    await stoppedDiscussion(sandbox, { when: /round 1 · critic is speaking/, signal: 'SIGKILL' });
    const [listed] = await sandbox.json<{ id: string }[]>(['sessions', 'list']);
    const id = listed?.id ?? '';
    expect((await sandbox.run(['--resume', id, '--yes'])).code).toBe(0);
    const spans = spansOfOtlpJson(JSON.parse((await sandbox.run(['sessions', 'trace', id])).stdout));
    const [killed] = spans.filter((span) => span.name === 'conclave run');
    const [resume] = spans.filter((span) => span.name === 'conclave resume');
    expect(killed?.status.code).toBe(2);
    expect(killed?.attributes).toMatchObject({ 'conclave.session.status': 'running', 'conclave.run.died': true });
    expect(BigInt(killed?.endTimeUnixNano ?? 0)).toBeGreaterThan(BigInt(killed?.startTimeUnixNano ?? 0));
    expect(BigInt(killed?.endTimeUnixNano ?? 0)).toBeLessThanOrEqual(BigInt(resume?.startTimeUnixNano ?? 0));
    expect(resume?.attributes['conclave.run.after_crash']).toBe(true);
    expect(resume?.links[0]).toMatchObject({
      spanId: killed?.spanId,
      attributes: { 'conclave.link.reason': 'resumed after a crash' },
    });
  });

  it('keeps a run that waits for a person open until the answer, not as died, and links the run after it', async () => {
    const script = path.join(sandbox.root, 'ask.yaml');
    await writeFile(
      script,
      [
        '- agent: lead',
        '  tool_calls:',
        '    - { name: ask_user, args: { question: "Which city?" } }',
        '- agent: lead',
        '  text: "Done."',
        '',
      ].join('\n'),
    );
    const asked = await sandbox.run(['--mode', 'orchestrated', '--script', script, 'Plan the offsite']);
    const id = sessionIdFrom(asked.stdout) ?? '';
    expect((await sandbox.run(['answer', id, 'Lisbon'])).code).toBe(0);
    const resumed = await sandbox.run(['--resume', id, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const spans = spansOfOtlpJson(JSON.parse((await sandbox.run(['sessions', 'trace', id])).stdout));
    const [first] = spans.filter((span) => span.name === 'conclave run');
    const [resume] = spans.filter((span) => span.name === 'conclave resume');
    // It waited until the answer came (given by `conclave answer`, which leaves it to be resumed).
    expect(first?.attributes['conclave.session.status']).toBe('interrupted');
    expect(first?.attributes['conclave.run.stop_reason']).toContain('answered');
    expect(first?.attributes['conclave.run.died']).toBeUndefined();
    expect(first?.status.code ?? 0).toBe(0);
    expect(resume?.links[0]?.spanId).toBe(first?.spanId);
    expect(resume?.status.code).toBe(1);
    expect(spans.filter((span) => span.name === 'execute_tool ask_user')).toHaveLength(1);
  });

  it('gives the same ids as the live export of the same run', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const run = await sandbox.run(['Pick a database', '--max-rounds', '1'], {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      });
      const id = sessionIdFrom(run.stdout) ?? '';
      const exported = await sandbox.run(['sessions', 'trace', id]);
      const ids = (spans: ReceivedSpan[]) =>
        spans.map((span) => `${span.name} ${span.spanId} ${span.parentSpanId ?? ''}`).sort();
      expect(ids(spansOfOtlpJson(JSON.parse(exported.stdout)))).toEqual(ids(receiver.spans()));
    } finally {
      await receiver.close();
    }
  });

  it('names the session it cannot find', async () => {
    const missing = await sandbox.run(['sessions', 'trace', 'nosuchsession', '-o', 'x.json']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('nosuchsession');
  });
});
