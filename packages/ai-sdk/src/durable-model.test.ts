// The middleware with the AI SDK's own mock models: a job that crashed (threw) after some
// model calls is run again; the recorded calls come back from the journal, only the rest
// reach the provider, and the results are the same as an uninterrupted run's.
import { APICallError, type LanguageModelV4GenerateResult, type LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { createEngine, createSessionId, type Session } from '@resume/core';
import { createMemoryStore } from '@resume/core/testing';
import { generateText, type LanguageModel, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { durable } from './durable-model.js';
import { PromptChangedError } from './prompt-changed-error.js';

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

function reply(text: string, timestamp = new Date('2025-01-02T03:04:05.000Z')): LanguageModelV4GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: usage(100, 20),
    warnings: [],
    response: { id: `resp-${text}`, timestamp, modelId: 'gpt-4o', body: { huge: 'x'.repeat(1000) } },
    request: { body: { prompt: 'the whole prompt' } },
  };
}

/** A provider that answers `answer <n>` to its n-th call and counts its calls. */
function countingModel() {
  let calls = 0;
  const model = new MockLanguageModelV4({
    modelId: 'gpt-4o',
    doGenerate: async () => {
      calls += 1;
      return reply(`answer ${calls}`);
    },
  });
  return { model, calls: () => calls };
}

class Crash extends Error {}

async function threeQuestions(session: Session, provider: LanguageModel, crashAfter: number | null) {
  const model = wrapLanguageModel({ model: provider as never, middleware: durable(session) });
  const answers: string[] = [];
  for (const question of ['one', 'two', 'three']) {
    const { text } = await generateText({ model, prompt: `Question ${question}` });
    answers.push(text);
    if (answers.length === crashAfter) throw new Crash('the process died here');
  }
  return answers;
}

describe('durable(session) with doGenerate', () => {
  it('replays the recorded calls after a crash and sends only the rest to the provider', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const id = createSessionId();
    const provider = countingModel();
    await expect(
      engine.run({ id, title: 'three questions' }, (session) => threeQuestions(session, provider.model, 2)),
    ).rejects.toThrow(Crash);
    expect(provider.calls()).toBe(2);

    const answers = await engine.run(id, (session) => threeQuestions(session, provider.model, null));
    expect(answers).toEqual(['answer 1', 'answer 2', 'answer 3']);
    expect(provider.calls()).toBe(3);

    // A finished job run again is all replay: the provider is not called at all.
    const again = await engine.run(id, (session) => threeQuestions(session, provider.model, null));
    expect(again).toEqual(answers);
    expect(provider.calls()).toBe(3);
  });

  it('returns the recorded result with its shape (dates as dates), without the raw bodies', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const id = createSessionId();
    const provider = countingModel();
    const run = () =>
      engine.run({ id, title: 'shape' }, async (session) => {
        const model = wrapLanguageModel({ model: provider.model, middleware: durable(session) });
        return generateText({ model, prompt: 'hello' });
      });
    const live = await run();
    const replayed = await run();
    expect(provider.calls()).toBe(1);
    expect(replayed.response.timestamp).toBeInstanceOf(Date);
    expect(replayed.response.timestamp.toISOString()).toBe('2025-01-02T03:04:05.000Z');
    expect(replayed.text).toBe(live.text);
    expect(replayed.usage).toEqual(live.usage);
    expect(replayed.finishReason).toBe('stop');
    expect(replayed.response.id).toBe('resp-answer 1');
    const state = await engine.readSession(id);
    const recorded = JSON.stringify(state.steps[0]?.output);
    expect(recorded).not.toContain('x'.repeat(1000));
    expect(recorded).not.toContain('the whole prompt');
  });

  it('journals usage and cost once per call, not again on replay', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const id = createSessionId();
    const provider = countingModel();
    await expect(engine.run({ id, title: 'usage' }, (s) => threeQuestions(s, provider.model, 1))).rejects.toThrow();
    await engine.run(id, (s) => threeQuestions(s, provider.model, null));
    const state = await engine.readSession(id);
    expect(state.usageRecords).toHaveLength(3);
    expect(state.usage.inputTokens).toBe(300);
    expect(state.usage.outputTokens).toBe(60);
    // gpt-4o: $2.50 in, $10 out per million tokens.
    expect(state.usageRecords[0]).toMatchObject({ model: 'gpt-4o', stepKey: 'model:generate', costUsd: 0.00045 });
  });

  it('refuses to hand a recorded response to a different prompt', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const id = createSessionId();
    const provider = countingModel();
    const ask = (prompt: string) => (session: Session) =>
      generateText({ model: wrapLanguageModel({ model: provider.model, middleware: durable(session) }), prompt });
    await engine.run({ id, title: 'prompt' }, ask('What is 2+2?'));
    const error = await engine.run(id, ask('What is 3+3?')).catch((thrown: unknown) => thrown);
    expect(PromptChangedError.isInstance(error)).toBe(true);
    expect((error as PromptChangedError).stepKey).toBe('model:generate');
    expect(provider.calls()).toBe(1);
  });

  it('replays a retried provider failure as the same retry, without waiting and without calling the provider', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const id = createSessionId();
    let calls = 0;
    const provider = new MockLanguageModelV4({
      doGenerate: async () => {
        calls += 1;
        if (calls === 1) {
          throw new APICallError({
            message: 'overloaded',
            url: 'https://api.example/v1',
            requestBodyValues: {},
            statusCode: 529,
            responseHeaders: { 'retry-after-ms': '1' },
          });
        }
        return reply('after a retry');
      },
    });
    const job = (session: Session) =>
      generateText({ model: wrapLanguageModel({ model: provider, middleware: durable(session) }), prompt: 'hi' });
    const live = await engine.run({ id, title: 'retry' }, job);
    expect(live.text).toBe('after a retry');
    expect(calls).toBe(2);
    const state = await engine.readSession(id);
    expect(state.steps.map((step) => step.status)).toEqual(['failed', 'completed']);
    expect(state.steps[0]?.attempts[0]?.error).toMatchObject({ name: 'AI_APICallError', retryable: true });

    const replayed = await engine.run(id, job);
    expect(replayed.text).toBe('after a retry');
    expect(calls).toBe(2);
  });

  it('names its steps after the option (two models in one session)', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const id = createSessionId();
    const planner = countingModel();
    const writer = countingModel();
    const job = async (session: Session) => {
      const plan = await generateText({
        model: wrapLanguageModel({ model: planner.model, middleware: durable(session, { name: 'planner' }) }),
        prompt: 'plan',
      });
      const text = await generateText({
        model: wrapLanguageModel({ model: writer.model, middleware: durable(session, { name: 'writer' }) }),
        prompt: plan.text,
      });
      return text.text;
    };
    await engine.run({ id, title: 'two models' }, job);
    const state = await engine.readSession(id);
    expect(state.steps.map((step) => step.key)).toEqual(['planner:generate', 'writer:generate']);
    expect(await engine.run(id, job)).toBe('answer 1');
    expect(planner.calls() + writer.calls()).toBe(2);
  });
});

const streamParts = (text: string): LanguageModelV4StreamPart[] => [
  { type: 'stream-start', warnings: [] },
  { type: 'response-metadata', id: 'resp-1', modelId: 'gpt-4o', timestamp: new Date('2025-01-02T03:04:05.000Z') },
  { type: 'text-start', id: 't1' },
  ...text.split(' ').map(
    (word, index): LanguageModelV4StreamPart => ({
      type: 'text-delta',
      id: 't1',
      delta: index === 0 ? word : ` ${word}`,
    }),
  ),
  { type: 'text-end', id: 't1' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(50, 5) },
];

describe('durable(session) with doStream', () => {
  function streamingModel() {
    let calls = 0;
    const model = new MockLanguageModelV4({
      modelId: 'gpt-4o',
      doStream: async () => {
        calls += 1;
        return {
          stream: simulateReadableStream({ chunks: streamParts(`streamed answer number ${calls}`) }),
          response: { headers: { 'x-request-id': `req-${calls}` } },
        };
      },
    });
    return { model, calls: () => calls };
  }

  async function streamJob(session: Session, provider: MockLanguageModelV4, crashAfter: number | null) {
    const model = wrapLanguageModel({ model: provider, middleware: durable(session) });
    const runs: { text: string; parts: string[]; headers: unknown }[] = [];
    for (const prompt of ['first', 'second']) {
      const result = streamText({ model, prompt });
      const parts: string[] = [];
      for await (const part of result.fullStream)
        parts.push(part.type === 'text-delta' ? `delta:${part.text}` : part.type);
      runs.push({ text: await result.text, parts, headers: (await result.response).headers });
      if (runs.length === crashAfter) throw new Crash('died between streams');
    }
    return runs;
  }

  it('replays a recorded stream as the same parts and streams only the unfinished call', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const id = createSessionId();
    const provider = streamingModel();
    await expect(engine.run({ id, title: 'streams' }, (s) => streamJob(s, provider.model, 1))).rejects.toThrow(Crash);
    expect(provider.calls()).toBe(1);

    const runs = await engine.run(id, (s) => streamJob(s, provider.model, null));
    expect(provider.calls()).toBe(2);
    expect(runs.map((run) => run.text)).toEqual(['streamed answer number 1', 'streamed answer number 2']);

    const fresh = createEngine({ store: createMemoryStore() });
    const uninterrupted = await fresh.run({ title: 'reference' }, (s) => streamJob(s, streamingModel().model, null));
    expect(runs).toEqual(uninterrupted);
    expect(runs[0]?.parts).toContain('delta: answer');
    expect(runs[0]?.headers).toEqual({ 'x-request-id': 'req-1' });

    const state = await engine.readSession(id);
    expect(state.usageRecords.map((record) => record.inputTokens)).toEqual([50, 50]);
  });

  it('passes a stream through as it arrives on a live call', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const provider = new MockLanguageModelV4({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async start(controller) {
            for (const part of streamParts('early words').slice(0, 4)) controller.enqueue(part);
            await gate;
            for (const part of streamParts('early words').slice(4)) controller.enqueue(part);
            controller.close();
          },
        }),
      }),
    });
    const text = await engine.run({ title: 'live stream' }, async (session) => {
      const result = streamText({
        model: wrapLanguageModel({ model: provider, middleware: durable(session) }),
        prompt: 'x',
      });
      const seen: string[] = [];
      for await (const delta of result.textStream) {
        seen.push(delta);
        // The first word arrived before the provider finished: the middleware does not buffer.
        if (seen.length === 1) release();
      }
      return seen.join('');
    });
    expect(text).toBe('early words');
  });
});
