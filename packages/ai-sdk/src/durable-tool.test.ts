// Tools executed by generateText, made durable: a re-run gets the recorded output without
// executing the tool again, and an unsafe tool caught in flight is not run again silently.
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { createEngine, createSessionId, type Session, UncertainStepError, UsageError } from '@resume/core';
import { createMemoryStore, type MemoryStore } from '@resume/core/testing';
import { generateText, isStepCount, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { durable } from './durable-model.js';
import { durableTool, durableTools } from './durable-tool.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined },
};

/** First asks for `charge({ cents: 500 })`, then answers with what the tool returned. */
function agentModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }): Promise<LanguageModelV4GenerateResult> => {
      const toolMessage = prompt.find((message) => message.role === 'tool');
      if (!toolMessage) {
        return {
          content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'charge', input: '{"cents":500}' }],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: 'text', text: `done: ${JSON.stringify(toolMessage.content[0])}` }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      };
    },
  });
}

/** Each call is another process on the same store. */
function processes(store: MemoryStore) {
  let pid = 3000;
  return () => {
    pid += 1;
    return createEngine({ store, holder: { pid, host: 'test' } });
  };
}

describe('durableTool', () => {
  it('executes a tool once across a crash and a re-run', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const id = createSessionId();
    const charges: { cents: number; toolCallId: string }[] = [];
    let crash = true;
    const job = async (session: Session) => {
      const charge = durableTool(
        session,
        tool({
          description: 'Charges the card',
          inputSchema: z.object({ cents: z.number() }),
          execute: async ({ cents }, { toolCallId }) => {
            charges.push({ cents, toolCallId });
            return { charged: cents, receipt: 'r-1' };
          },
        }),
        { name: 'charge', safety: 'unsafe' },
      );
      const result = await generateText({
        model: wrapLanguageModel({ model: agentModel(), middleware: durable(session) }),
        tools: { charge },
        stopWhen: isStepCount(2),
        prompt: 'Charge 5 dollars',
      });
      if (crash) throw new Error('died after the answer');
      return result.text;
    };
    await expect(nextProcess().run({ id, title: 'charge' }, job)).rejects.toThrow('died');
    crash = false;
    const text = await nextProcess().run(id, job);
    expect(charges).toEqual([{ cents: 500, toolCallId: 'call-1' }]);
    expect(text).toContain('"charged":500');
    const state = await nextProcess().readSession(id);
    expect(state.steps.map((step) => `${step.key}:${step.status}`)).toEqual([
      'model:generate:completed',
      'tool:charge:completed',
      'model:generate:completed',
    ]);
    expect(state.steps[1]?.safety).toBe('unsafe');
  });

  it('stops at an unsafe tool caught in flight, and skips it when told to', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const id = createSessionId();
    let executions = 0;
    let hang = true;
    const job = (onUncertain?: () => 'skip') => async (session: Session) => {
      const charge = durableTool(
        session,
        tool({
          inputSchema: z.object({ cents: z.number() }),
          execute: async () => {
            executions += 1;
            if (hang) await new Promise(() => {});
            return { charged: 500 };
          },
        }),
        { name: 'charge', safety: 'unsafe', ...(onUncertain ? { onUncertain, skipValue: { skipped: true } } : {}) },
      );
      const result = await generateText({
        model: wrapLanguageModel({ model: agentModel(), middleware: durable(session) }),
        tools: { charge },
        stopWhen: isStepCount(2),
        prompt: 'Charge 5 dollars',
      });
      return result.text;
    };
    void nextProcess().run({ id, title: 'charge' }, job());
    await new Promise((resolve) => setTimeout(resolve, 20));
    store.killHolder(id);
    hang = false;
    const stopped = await nextProcess()
      .run(id, job())
      .catch((error: unknown) => error);
    expect(UncertainStepError.isInstance(stopped)).toBe(true);
    expect(executions).toBe(1);
    const text = await nextProcess().run(
      id,
      job(() => 'skip'),
    );
    expect(executions).toBe(1);
    expect(text).toContain('"skipped":true');
  });

  it('wraps a tool set by name and refuses a tool with nothing to execute', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    await engine.run({ title: 'tools' }, async (session) => {
      const tools = durableTools(session, {
        weather: tool({ inputSchema: z.object({}), execute: async () => 'sunny' }),
        search: tool({ inputSchema: z.object({}) }),
      });
      expect(tools.search.execute).toBeUndefined();
      expect(await tools.weather.execute?.({}, { toolCallId: 'x', messages: [], context: {} })).toBe('sunny');
      expect(session.state.steps.map((step) => step.key)).toEqual(['tool:weather']);
      expect(() => durableTool(session, tool({ inputSchema: z.object({}) }))).toThrow(UsageError);
    });
  });
});
