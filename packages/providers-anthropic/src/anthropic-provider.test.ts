import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type ChatMessage, ProviderError } from '@resume/core/spec';
import { type FakeHttpServer, type FakeReply, sse, startFakeHttpServer } from '@resume/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AnthropicProviderOptions, createAnthropicProvider } from './anthropic-provider.js';

const API_KEY = 'sk-ant-api03-test-secret-0123456789abcdef';
const fixtures = path.join(import.meta.dirname, '__fixtures__');
const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(fixtures, name), 'utf8'));
const eventsOf = (name: string) =>
  z.array(z.object({ event: z.string(), data: z.record(z.string(), z.unknown()) })).parse(fixture(name));
const streamOf = (name: string): FakeReply => ({ events: eventsOf(name).map(({ event, data }) => sse(data, event)) });

const blockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string().min(1) }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('tool_result'), tool_use_id: z.string(), content: z.string() }),
]);
const requestBodySchema = z
  .object({
    model: z.string(),
    max_tokens: z.number().int().positive(),
    stream: z.literal(true),
    system: z.string().optional(),
    temperature: z.number().optional(),
    messages: z.array(
      z.object({
        role: z.enum(['user', 'assistant']),
        content: z.union([z.string().min(1), z.array(blockSchema).min(1)]),
      }),
    ),
    tools: z
      .array(z.object({ name: z.string(), description: z.string(), input_schema: z.record(z.string(), z.unknown()) }))
      .optional(),
  })
  .refine((body) => body.messages[0]?.role === 'user', 'the first message must be a user message')
  .refine(
    (body) => body.messages.every((message, index) => index === 0 || message.role !== body.messages[index - 1]?.role),
    'user and assistant must alternate',
  );

let server: FakeHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(handler: Parameters<typeof startFakeHttpServer>[0], options: AnthropicProviderOptions = {}) {
  server = await startFakeHttpServer(handler);
  const provider = createAnthropicProvider({
    env: {},
    apiKey: API_KEY,
    baseURL: server.url,
    maxRetries: 0,
    ...options,
  });
  return { provider, server };
}

const task: ChatMessage = { role: 'user', content: 'Say hello.' };

describe('Anthropic provider: streaming', () => {
  it('streams text, reports usage and stop reason, and sends a valid request', async () => {
    const { provider, server } = await setup(() => streamOf('stream-text.json'));
    const deltas: string[] = [];
    const result = await provider.chatModel('claude-haiku-4-5').generate({
      system: 'Be brief.',
      messages: [task],
      maxTokens: 512,
      temperature: 0.5,
      onDelta: (delta) => deltas.push(delta),
    });
    expect(result.message.content).toBe('Hello there, how can I help?');
    expect(deltas).toEqual(['Hello', ' there,', ' how can I help?']);
    expect(result.usage).toEqual({ inputTokens: 25, outputTokens: 15 });
    expect(result.finishReason).toBe('stop');
    expect(result.model).toBe('claude-sonnet-4-5-20250929');

    const [request] = server.requests;
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers['anthropic-version']).toBeDefined();
    expect(`${request?.headers['x-api-key'] ?? ''}${request?.headers.authorization ?? ''}`).toContain(API_KEY);
    expect(requestBodySchema.parse(request?.body)).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 512,
      stream: true,
      system: 'Be brief.',
      temperature: 0.5,
      messages: [{ role: 'user', content: 'Say hello.' }],
    });
  });

  it('always sends max_tokens, which the API requires', async () => {
    const { provider, server } = await setup(() => streamOf('stream-text.json'), { defaultMaxTokens: 1000 });
    await provider.chatModel('claude-haiku-4-5').generate({ messages: [task] });
    expect(requestBodySchema.parse(server.requests[0]?.body).max_tokens).toBe(1000);
  });

  it('maps a multi-agent transcript onto alternating messages with tool_use and tool_result blocks', async () => {
    const { provider, server } = await setup(() => streamOf('stream-text.json'));
    await provider.chatModel('claude-haiku-4-5').generate({
      system: 'You are the optimist.',
      messages: [
        { role: 'system', content: 'Discussion rules.' },
        { role: 'user', content: 'Evaluate the idea.', speaker: 'user' },
        { role: 'assistant', content: 'I doubt it.', speaker: 'skeptic' },
        {
          role: 'assistant',
          content: 'Let me check.',
          speaker: 'optimist',
          toolCalls: [{ id: 'toolu_1', name: 'read_file', args: { path: 'a.txt' } }],
        },
        { role: 'tool', content: 'file text', toolCallId: 'toolu_1' },
        { role: 'assistant', content: 'Still unsure.', speaker: 'pragmatist' },
        { role: 'system', content: 'Round 2.' },
      ],
      metadata: { agent: 'optimist' },
    });
    const body = requestBodySchema.parse(server.requests[0]?.body);
    expect(body.system).toBe('You are the optimist.\n\nDiscussion rules.');
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Evaluate the idea.' },
          { type: 'text', text: '[skeptic]: I doubt it.' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'file text' },
          { type: 'text', text: '[pragmatist]: Still unsure.' },
          { type: 'text', text: '[system]: Round 2.' },
        ],
      },
    ]);
  });

  it('assembles tool input from input_json_delta and sends the tool schema', async () => {
    const { provider, server } = await setup(() => streamOf('stream-tool-use.json'));
    const parameters = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    const result = await provider.chatModel('claude-haiku-4-5').generate({
      messages: [task],
      tools: [{ name: 'read_file', description: 'Read a file', parameters }],
    });
    expect(result.message.content).toBe('Let me read the notes first.');
    expect(result.toolCalls).toEqual([
      { id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'read_file', args: { path: 'notes.txt' } },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage).toEqual({ inputTokens: 472, outputTokens: 89 });
    expect(requestBodySchema.parse(server.requests[0]?.body).tools).toEqual([
      { name: 'read_file', description: 'Read a file', input_schema: parameters },
    ]);
  });
});

describe('Anthropic provider: errors', () => {
  const errorReply = (status: number, name: string, headers: Record<string, string> = {}): FakeReply => ({
    status,
    headers,
    json: fixture(name),
  });
  const failure = async (reply: FakeReply) => {
    const { provider } = await setup(() => reply);
    const error = await provider
      .chatModel('claude-haiku-4-5')
      .generate({ messages: [task] })
      .catch((caught: unknown) => caught);
    if (!ProviderError.isInstance(error)) throw new Error(`expected a ProviderError, got ${String(error)}`);
    return error;
  };

  it('maps 401 to authentication without the key in the message', async () => {
    const error = await failure(errorReply(401, 'error-401.json'));
    expect(error).toMatchObject({ reason: 'authentication', status: 401, isRetryable: false, provider: 'anthropic' });
    expect(`${error.message} ${error.hint ?? ''} ${JSON.stringify(error)}`).not.toContain(API_KEY);
  });

  it('maps 404 to model-not-found', async () => {
    expect(await failure(errorReply(404, 'error-404.json'))).toMatchObject({ reason: 'model-not-found', status: 404 });
  });

  it('maps 429 to a retryable rate limit with retry-after', async () => {
    const error = await failure(errorReply(429, 'error-429.json', { 'retry-after': '7' }));
    expect(error).toMatchObject({ reason: 'rate-limit', isRetryable: true, retryAfterMs: 7000 });
  });

  it('maps 529 overloaded_error and 500 api_error to retryable failures', async () => {
    expect(await failure(errorReply(529, 'error-529.json'))).toMatchObject({
      reason: 'overloaded',
      status: 529,
      isRetryable: true,
    });
    expect(await failure(errorReply(500, 'error-500.json'))).toMatchObject({
      reason: 'unavailable',
      isRetryable: true,
    });
  });

  it('maps an overloaded error event inside a stream', async () => {
    const events = eventsOf('stream-text.json')
      .slice(0, 4)
      .map(({ event, data }) => sse(data, event));
    events.push(sse(fixture('error-529.json'), 'error'));
    const error = await failure({ events });
    expect(error).toMatchObject({ reason: 'overloaded', isRetryable: true });
  });

  it('reports a stream cut mid-way as a network error', async () => {
    expect(await failure({ ...streamOf('stream-text.json'), cutAfter: 4 })).toMatchObject({
      reason: 'network',
      isRetryable: true,
    });
  });

  it('stops mid-stream when aborted', async () => {
    const { provider } = await setup(() => ({ ...streamOf('stream-text.json'), hangAfter: 4 }));
    const controller = new AbortController();
    const error = await provider
      .chatModel('claude-haiku-4-5')
      .generate({ messages: [task], signal: controller.signal, onDelta: () => controller.abort() })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ reason: 'aborted' });
  });

  it('refuses to call without a key', async () => {
    const provider = createAnthropicProvider({ env: {} });
    await expect(provider.chatModel('claude-haiku-4-5').generate({ messages: [task] })).rejects.toMatchObject({
      reason: 'authentication',
      hint: expect.stringMatching(/ANTHROPIC_API_KEY/),
    });
  });
});

describe('Anthropic provider: configuration and models', () => {
  it('reads the key and base URL from the environment', async () => {
    server = await startFakeHttpServer(() => streamOf('stream-text.json'));
    const provider = createAnthropicProvider({
      env: { ANTHROPIC_API_KEY: 'env-anthropic-key-0123', ANTHROPIC_BASE_URL: server.url },
      maxRetries: 0,
    });
    await provider.chatModel('claude-haiku-4-5').generate({ messages: [task] });
    const headers = server.requests[0]?.headers;
    expect(`${headers?.['x-api-key'] ?? ''}${headers?.authorization ?? ''}`).toContain('env-anthropic-key-0123');
  });

  it('lists models', async () => {
    const { provider, server } = await setup(() => ({ json: fixture('models-list.json') }));
    expect(await provider.listModels()).toEqual(['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001']);
    expect(server.requests[0]?.path).toMatch(/^\/v1\/models/);
  });
});
