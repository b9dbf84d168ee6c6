// A child process for the SIGKILL loop: AI SDK code with durable model calls and a durable
// tool over the file store. The mock provider appends a line to the call log when a call
// starts (and prints `started`); the worker prints `ack <n>` once call n's result is durable.
// With a data key (64 hex digits), the store encrypts what it writes with it; a postgres:// URL
// in place of the home (and a schema) puts the session on PostgreSQL. Usage:
//   durable-calls-worker <home | postgres-url> <session-id> <call-log> <calls> [<data key> | -] [<schema>]
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { createEngine } from '@resume/core';
import { keyIdFor } from '@resume/core/encryption';
import { createFsStore } from '@resume/storage-fs';
import { createPostgresStore } from '@resume/storage-postgres';
import { generateText, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { durable, durableTool } from '../index.js';

const [home, id, callLog, count, dataKey, schema] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string?,
  string?,
];
const calls = Number(count);
function logCall(line: string): void {
  appendFileSync(callLog, `${line}\n`);
  process.stdout.write('started\n');
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 3, text: 3, reasoning: undefined },
};

/** Answers depend only on the prompt (its call number and a hash of it), so a re-run call answers the same. */
function callOf(prompt: unknown): string {
  const text = JSON.stringify(prompt);
  const call = /Call (\d+)/.exec(text)?.[1] ?? '?';
  return `${call} ${createHash('sha256').update(text).digest('hex').slice(0, 8)}`;
}
const answerTo = (prompt: unknown) => `answer-${callOf(prompt).replace(' ', '-')}`;

const provider = new MockLanguageModelV4({
  modelId: 'mock-model',
  doGenerate: async ({ prompt }) => {
    logCall(`model ${callOf(prompt)}`);
    await pause(5 + Math.random() * 15);
    return {
      content: [{ type: 'text', text: answerTo(prompt) }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    };
  },
  doStream: async ({ prompt }) => {
    logCall(`model ${callOf(prompt)}`);
    const words = answerTo(prompt).split('-');
    return {
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 't' });
          for (const [index, word] of words.entries()) {
            await pause(3 + Math.random() * 6);
            controller.enqueue({ type: 'text-delta', id: 't', delta: index === 0 ? word : `-${word}` });
          }
          controller.enqueue({ type: 'text-end', id: 't' });
          controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
          controller.close();
        },
      }),
    };
  },
});

const key = dataKey && dataKey !== '-' ? Buffer.from(dataKey, 'hex') : null;
const encryption = key ? { keys: { [keyIdFor(key)]: key }, current: keyIdFor(key) } : undefined;
const store = home.startsWith('postgres://')
  ? createPostgresStore({ connectionString: home, ...(schema ? { schema } : {}), encryption })
  : createFsStore({ dir: home, ...(encryption ? { encryption } : {}) });
const engine = createEngine({ store });
process.stdout.write('ready\n');
const transcript = await engine.run(
  { id, title: 'durable AI SDK calls' },
  async (session) => {
    const model = wrapLanguageModel({ model: provider, middleware: durable(session) });
    const note = durableTool(
      session,
      tool({
        description: 'Writes a note',
        inputSchema: z.object({ text: z.string() }),
        execute: async ({ text }) => {
          logCall(`tool ${text}`);
          await pause(2);
          return `noted ${text.length}`;
        },
      }),
      { name: 'note' },
    );
    const answers: string[] = [];
    for (let call = 1; call <= calls; call += 1) {
      const prompt = `Call ${call} after ${answers.at(-1) ?? 'nothing'}`;
      let text: string;
      if (call % 2 === 0) {
        const result = streamText({ model, prompt });
        text = await result.text;
      } else {
        text = (await generateText({ model, prompt })).text;
      }
      const noted = await note.execute?.({ text }, { toolCallId: `note-${call}`, messages: [], context: {} });
      answers.push(`${text}|${String(noted)}`);
      process.stdout.write(`ack ${call}\n`);
    }
    return answers;
  },
  { maxRecoveries: 10_000 },
); // kills in a row without progress are the point here, not a poison call
process.stdout.write(`done ${JSON.stringify(transcript)}\n`);
await engine.close();
