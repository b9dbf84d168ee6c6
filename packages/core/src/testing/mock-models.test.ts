import { describe, expect, it } from 'vitest';
import { ProviderError } from '../spec/index.js';
import { createMockModel, createMockProvider } from './mock-models.js';

describe('createMockModel', () => {
  it('answers in order, records calls and streams the text', async () => {
    const model = createMockModel({ responses: ['first', { text: 'second', finishReason: 'length' }] });
    const deltas: string[] = [];
    const first = await model.generate({ messages: [{ role: 'user', content: 'hi' }], onDelta: (d) => deltas.push(d) });
    const second = await model.generate({ messages: [{ role: 'user', content: 'again' }] });
    expect(first.message.content).toBe('first');
    expect(second.finishReason).toBe('length');
    expect(deltas).toEqual(['first']);
    expect(model.calls.map((call) => call.messages[0]?.content)).toEqual(['hi', 'again']);
    await expect(model.generate({ messages: [] })).rejects.toThrow(/only 2 responses/);
  });

  it('computes answers, returns tool calls and throws scripted errors', async () => {
    const failure = new ProviderError({ reason: 'rate-limit', provider: 'mock', message: 'slow down' });
    const model = createMockModel({
      respond: (_request, index) =>
        index === 0 ? { toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'a' } }] } : failure,
    });
    const result = await model.generate({ messages: [] });
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls[0]?.name).toBe('read_file');
    await expect(model.generate({ messages: [] })).rejects.toSatisfy((error) => ProviderError.isInstance(error));
  });

  it('refuses an aborted call', async () => {
    const model = createMockModel({ responses: ['x'] });
    await expect(model.generate({ messages: [], signal: AbortSignal.abort() })).rejects.toMatchObject({
      reason: 'aborted',
    });
  });

  it('serves models from a provider', async () => {
    const provider = createMockProvider({ a: createMockModel({ modelId: 'a', responses: ['from a'] }) });
    expect((await provider.chatModel('a').generate({ messages: [] })).message.content).toBe('from a');
    expect((await provider.chatModel('b').generate({ messages: [] })).message.content).toBe('(b)');
    expect(await provider.listModels()).toEqual(['a', 'b']);
  });
});
