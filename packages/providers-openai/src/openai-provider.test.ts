import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type ChatMessage, ProviderError } from '@resume/core/spec';
import { type FakeHttpServer, type FakeReply, sse, startFakeHttpServer } from '@resume/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOpenAIProvider, type OpenAIProviderOptions } from './openai-provider.js';

const API_KEY = 'sk-test-secret-key-0123456789abcdef3456';
const fixtures = path.join(import.meta.dirname, '__fixtures__');
const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(fixtures, name), 'utf8'));
const chunks = (name: string) => z.array(z.record(z.string(), z.unknown())).parse(fixture(name));
const streamOf = (name: string): FakeReply => ({ events: [...chunks(name).map((chunk) => sse(chunk)), sse('[DONE]')] });

const requestBodySchema = z.object({
  model: z.string(),
  stream: z.literal(true),
  stream_options: z.object({ include_usage: z.literal(true) }),
  messages: z.array(
    z.discriminatedUnion('role', [
      z.object({ role: z.literal('system'), content: z.string() }),
      z.object({ role: z.literal('user'), content: z.string() }),
      z.object({
        role: z.literal('assistant'),
        content: z.string().nullable(),
        tool_calls: z
          .array(
            z.object({
              id: z.string(),
              type: z.literal('function'),
              function: z.object({ name: z.string(), arguments: z.string() }),
            }),
          )
          .optional(),
      }),
      z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
    ]),
  ),
  tools: z
    .array(
      z.object({
        type: z.literal('function'),
        function: z.object({
          name: z.string(),
          description: z.string(),
          parameters: z.record(z.string(), z.unknown()),
        }),
      }),
    )
    .optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  temperature: z.number().optional(),
});

let server: FakeHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(handler: Parameters<typeof startFakeHttpServer>[0], options: OpenAIProviderOptions = {}) {
  server = await startFakeHttpServer(handler);
  const provider = createOpenAIProvider({
    env: {},
    apiKey: API_KEY,
    baseURL: `${server.url}/v1`,
    maxRetries: 0,
    ...options,
  });
  return { provider, server };
}

const task: ChatMessage = { role: 'user', content: 'Say hello.' };

describe('OpenAI provider: streaming', () => {
  it('streams text, reports usage, finish reason and model, and sends a valid request', async () => {
    const { provider, server } = await setup(() => streamOf('chat-stream-text.json'));
    const deltas: string[] = [];
    const result = await provider.chatModel('gpt-4o').generate({
      system: 'Be brief.',
      messages: [task],
      maxTokens: 256,
      temperature: 0.2,
      onDelta: (delta) => deltas.push(delta),
    });
    expect(result.message).toMatchObject({ role: 'assistant', content: 'Hello there, how can I help?' });
    expect(deltas).toEqual(['Hello', ' there,', ' how can I help?']);
    expect(result.usage).toEqual({ inputTokens: 19, outputTokens: 7 });
    expect(result.finishReason).toBe('stop');
    expect(result.model).toBe('gpt-4o-2024-08-06');

    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const body = requestBodySchema.parse(request?.body);
    expect(body).toMatchObject({
      model: 'gpt-4o',
      max_tokens: 256,
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello.' },
      ],
    });
  });

  it('uses max_completion_tokens when asked (the OpenAI API default)', async () => {
    const { provider, server } = await setup(() => streamOf('chat-stream-text.json'), {
      maxTokensField: 'max_completion_tokens',
    });
    await provider.chatModel('o3-mini').generate({ messages: [task], maxTokens: 100 });
    const body = requestBodySchema.parse(server.requests[0]?.body);
    expect(body.max_completion_tokens).toBe(100);
    expect(body.max_tokens).toBeUndefined();
  });

  it('maps other agents to user content with their name, and keeps its own turns and tool results', async () => {
    const { provider, server } = await setup(() => streamOf('chat-stream-text.json'));
    await provider.chatModel('gpt-4o').generate({
      messages: [
        { role: 'user', content: 'Evaluate the idea.', speaker: 'user' },
        { role: 'assistant', content: 'I like it.', speaker: 'optimist' },
        { role: 'assistant', content: 'I doubt it.', speaker: 'skeptic' },
        {
          role: 'assistant',
          content: '',
          speaker: 'optimist',
          toolCalls: [{ id: 'call_1', name: 'read_file', args: { path: 'a.txt' } }],
        },
        { role: 'tool', content: 'file text', toolCallId: 'call_1' },
        { role: 'system', content: 'Round 2.' },
      ],
      metadata: { agent: 'optimist' },
    });
    const body = requestBodySchema.parse(server.requests[0]?.body);
    expect(body.messages).toEqual([
      { role: 'user', content: 'Evaluate the idea.' },
      { role: 'assistant', content: 'I like it.' },
      { role: 'user', content: '[skeptic]: I doubt it.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'file text' },
      { role: 'system', content: 'Round 2.' },
    ]);
  });

  it('assembles streamed tool-call arguments by index and sends the tool schema', async () => {
    const { provider, server } = await setup(() => streamOf('chat-stream-tool-calls.json'));
    const parameters = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    const result = await provider.chatModel('gpt-4o').generate({
      messages: [task],
      tools: [
        { name: 'read_file', description: 'Read a file', parameters },
        { name: 'list_files', description: 'List files', parameters: { type: 'object', properties: {} } },
      ],
    });
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls).toEqual([
      { id: 'call_abc123', name: 'read_file', args: { path: 'notes.txt' } },
      { id: 'call_def456', name: 'list_files', args: { dir: '.' } },
    ]);
    expect(result.message.toolCalls).toEqual(result.toolCalls);
    expect(result.usage).toEqual({ inputTokens: 82, outputTokens: 35 });
    const body = requestBodySchema.parse(server.requests[0]?.body);
    expect(body.tools?.[0]).toEqual({
      type: 'function',
      function: { name: 'read_file', description: 'Read a file', parameters },
    });
  });

  it('returns a refusal as the answer with finish reason content-filter', async () => {
    const { provider } = await setup(() => ({
      events: [
        sse({ model: 'gpt-4o', choices: [{ index: 0, delta: { role: 'assistant', content: null, refusal: '' } }] }),
        sse({ model: 'gpt-4o', choices: [{ index: 0, delta: { refusal: "I'm sorry, I can't help with that." } }] }),
        sse({ model: 'gpt-4o', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
        sse('[DONE]'),
      ],
    }));
    const result = await provider.chatModel('gpt-4o').generate({ messages: [task] });
    expect(result.message.content).toBe("I'm sorry, I can't help with that.");
    expect(result.finishReason).toBe('content-filter');
  });

  it('estimates usage at four characters per token when a server sends none', async () => {
    const { provider } = await setup(() => ({
      events: [
        sse({ choices: [{ index: 0, delta: { content: '12345678' } }] }),
        sse({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
        sse('[DONE]'),
      ],
    }));
    const result = await provider.chatModel('llama3.1').generate({ messages: [task] });
    expect(result.usage.outputTokens).toBe(2);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.model).toBe('llama3.1');
  });

  it('rejects tool-call arguments that are not a JSON object', async () => {
    const { provider } = await setup(() => ({
      events: [
        sse({
          choices: [
            { index: 0, delta: { tool_calls: [{ index: 0, id: 'c', function: { name: 'x', arguments: '{"a":' } }] } },
          ],
        }),
        sse({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }),
        sse('[DONE]'),
      ],
    }));
    await expect(provider.chatModel('gpt-4o').generate({ messages: [task] })).rejects.toThrow(/not a JSON object/);
  });
});

describe('OpenAI provider: errors', () => {
  const errorReply = (status: number, name: string, headers: Record<string, string> = {}): FakeReply => ({
    status,
    headers,
    json: fixture(name),
  });
  const failure = async (reply: FakeReply, options: OpenAIProviderOptions = {}) => {
    const { provider } = await setup(() => reply, options);
    const error = await provider
      .chatModel('gpt-4o')
      .generate({ messages: [task] })
      .catch((caught: unknown) => caught);
    if (!ProviderError.isInstance(error)) throw new Error(`expected a ProviderError, got ${String(error)}`);
    return error;
  };

  it('maps 401 to authentication without the key or the Authorization header in the message', async () => {
    const error = await failure(errorReply(401, 'error-401.json'));
    expect(error).toMatchObject({ reason: 'authentication', status: 401, isRetryable: false, provider: 'openai' });
    const everything = `${error.message} ${error.hint ?? ''} ${JSON.stringify(error)}`;
    expect(everything).not.toContain(API_KEY);
    expect(everything).not.toMatch(/Bearer/);
  });

  it('maps 404 to model-not-found naming the model', async () => {
    const error = await failure(errorReply(404, 'error-404.json'));
    expect(error).toMatchObject({ reason: 'model-not-found', status: 404, model: 'gpt-4o' });
    expect(error.message).toMatch(/gpt-4o/);
  });

  it('maps 429 to a retryable rate limit carrying retry-after', async () => {
    const error = await failure(errorReply(429, 'error-429.json', { 'retry-after': '2' }));
    expect(error).toMatchObject({ reason: 'rate-limit', isRetryable: true, retryAfterMs: 2000 });
  });

  it('maps 500 to a retryable failure and 503 to overloaded', async () => {
    expect(await failure(errorReply(500, 'error-500.json'))).toMatchObject({
      reason: 'unavailable',
      isRetryable: true,
    });
    expect(await failure(errorReply(503, 'error-500.json'))).toMatchObject({ reason: 'overloaded', isRetryable: true });
  });

  it('maps 400 to a bad request that is not retried', async () => {
    const error = await failure({
      status: 400,
      json: { error: { message: 'Invalid value for messages', type: 'invalid_request_error' } },
    });
    expect(error).toMatchObject({ reason: 'bad-request', isRetryable: false });
    expect(error.message).toMatch(/Invalid value for messages/);
  });

  it('retries 5xx with the SDK when retries are allowed', async () => {
    const { provider, server } = await setup(
      (_request, index) =>
        index === 0
          ? { ...errorReply(500, 'error-500.json'), headers: { 'retry-after-ms': '1' } }
          : streamOf('chat-stream-text.json'),
      { maxRetries: 2 },
    );
    const result = await provider.chatModel('gpt-4o').generate({ messages: [task] });
    expect(result.message.content).toBe('Hello there, how can I help?');
    expect(server.requests).toHaveLength(2);
  });

  it('reports a stream cut mid-way as a retryable network error', async () => {
    const error = await failure({ ...streamOf('chat-stream-text.json'), cutAfter: 2 });
    expect(error).toMatchObject({ reason: 'network', isRetryable: true });
  });

  it('reports a stream that ends before a finish reason as a network error', async () => {
    const events = chunks('chat-stream-text.json')
      .slice(0, 3)
      .map((chunk) => sse(chunk));
    const error = await failure({ events });
    expect(error).toMatchObject({ reason: 'network' });
    expect(error.message).toMatch(/ended before the answer was complete/);
  });

  it('reports an unreachable server as a network error', async () => {
    const provider = createOpenAIProvider({
      env: {},
      apiKey: API_KEY,
      baseURL: 'http://127.0.0.1:1/v1',
      maxRetries: 0,
    });
    await expect(provider.chatModel('gpt-4o').generate({ messages: [task] })).rejects.toMatchObject({
      reason: 'network',
    });
  });

  it('stops mid-stream when aborted', async () => {
    const { provider } = await setup(() => ({ ...streamOf('chat-stream-text.json'), hangAfter: 2 }));
    const controller = new AbortController();
    const error = await provider
      .chatModel('gpt-4o')
      .generate({ messages: [task], signal: controller.signal, onDelta: () => controller.abort() })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ reason: 'aborted', isRetryable: false });
  });

  it('refuses to call the OpenAI API without a key', async () => {
    const provider = createOpenAIProvider({ env: {} });
    await expect(provider.chatModel('gpt-4o').generate({ messages: [task] })).rejects.toMatchObject({
      reason: 'authentication',
      hint: expect.stringMatching(/OPENAI_API_KEY/),
    });
  });
});

describe('OpenAI provider: configuration and models', () => {
  it('reads the key and base URL from the environment and sends max_tokens to a compatible server', async () => {
    server = await startFakeHttpServer(() => streamOf('chat-stream-text.json'));
    const provider = createOpenAIProvider({
      env: { OPENAI_API_KEY: 'env-key-0123456789', OPENAI_BASE_URL: `${server.url}/v1` },
      maxRetries: 0,
    });
    await provider.chatModel('llama3.1').generate({ messages: [task], maxTokens: 64 });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer env-key-0123456789');
    expect(requestBodySchema.parse(server.requests[0]?.body).max_tokens).toBe(64);
  });

  it('lists models', async () => {
    const { provider, server } = await setup(() => ({ json: fixture('models-list.json') }));
    expect(await provider.listModels()).toEqual(['gpt-4o', 'gpt-4o-mini', 'o3-mini']);
    expect(server.requests[0]?.path).toBe('/v1/models');
  });
});
