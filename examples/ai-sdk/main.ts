// A trip planner written with the Vercel AI SDK whose model calls and tool calls are durable
// steps of a Conclave session. Kill it at any moment (Ctrl+C, kill -9) and run it again with
// the session id it printed: the calls that finished come back from the journal, only the
// unfinished one goes to the provider.
//
//   node main.ts            starts a session and prints its id
//   node main.ts <id>       resumes it (or replays it all when it finished)
//
// The model is the AI SDK's mock with a little latency, so the example runs offline; put
// `openai('gpt-4o')` from `@ai-sdk/openai` (or any AI SDK provider) in its place.
import { homedir } from 'node:os';
import path from 'node:path';
import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { durable, durableTools } from '@resume/ai-sdk';
import { createEngine, createSessionId } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { generateText, isStepCount, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';

const latencyMs = Number(process.env.EXAMPLE_LATENCY_MS ?? 400);
const home = process.env.CONCLAVE_HOME ?? path.join(homedir(), '.conclave');
const id = process.argv[2] ?? createSessionId();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const usage = {
  inputTokens: { total: 120, noCache: 120, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 40, text: 40, reasoning: undefined },
};

let providerCalls = 0;
const provider = new MockLanguageModelV4({
  provider: 'example',
  modelId: 'example-model',
  async doGenerate({ prompt }): Promise<LanguageModelV4GenerateResult> {
    providerCalls += 1;
    console.log(`  → provider call ${providerCalls} (generate)`);
    await pause(latencyMs);
    const toolResult = prompt.find((message) => message.role === 'tool');
    if (!toolResult) {
      return {
        content: [{ type: 'tool-call', toolCallId: 'weather-1', toolName: 'weather', input: '{"city":"Lisbon"}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    }
    return {
      content: [
        { type: 'text', text: 'Morning: Alfama on foot. Noon: Time Out Market. Evening: sunset at the Miradouro.' },
      ],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    };
  },
  async doStream() {
    providerCalls += 1;
    console.log(`  → provider call ${providerCalls} (stream)`);
    const words = 'A walking day in Lisbon: old town, market lunch, sunset view.'.split(' ');
    return {
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 'summary' });
          for (const [index, word] of words.entries()) {
            await pause(latencyMs / words.length);
            controller.enqueue({ type: 'text-delta', id: 'summary', delta: index === 0 ? word : ` ${word}` });
          }
          controller.enqueue({ type: 'text-end', id: 'summary' });
          controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
          controller.close();
        },
      }),
    };
  },
});

const engine = createEngine({ store: createFsStore({ dir: home }) });
console.log(`session ${id}`);
console.log(`(kill it at any moment, then run: node main.ts ${id})`);

await engine.run({ id, title: 'Plan a day in Lisbon (AI SDK example)' }, async (session) => {
  if (session.replaying) console.log('resuming: finished calls come back from the journal');
  const model = wrapLanguageModel({ model: provider, middleware: durable(session) });
  const tools = durableTools(session, {
    weather: tool({
      description: 'The weather forecast for a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        console.log(`  → weather tool for ${city}`);
        await pause(latencyMs / 2);
        return { city, forecast: 'sunny, 24°C' };
      },
    }),
  });

  const plan = await generateText({ model, tools, stopWhen: isStepCount(3), prompt: 'Plan a day in Lisbon.' });
  console.log(`plan: ${plan.text}`);

  const summary = streamText({ model, prompt: `Summarize in one line: ${plan.text}` });
  console.log('summary:');
  for await (const delta of summary.textStream) process.stdout.write(delta);
  process.stdout.write('\n');
});

const state = await engine.readSession(id);
console.log(
  `done: ${providerCalls} provider call(s) in this run; ${state.usageRecords.length} model calls journaled, ${state.usage.inputTokens + state.usage.outputTokens} tokens in all`,
);
console.log(`see it with: conclave sessions show ${id}`);
await engine.close();
