// A mode registered from outside: the test uses only the package's public entry points, as
// a program would, and runs its toy mode through start, plan, resume and continue.
import { createEngine } from '@resume/core';
import { type ChatModel, MODEL_SPECIFICATION_VERSION } from '@resume/core/spec';
import { createMemoryStore } from '@resume/core/testing';
import {
  builtinModes,
  createRunner,
  defineMode,
  type ModeConfig,
  parseModeOptions,
  positiveIntegerOption,
  UnknownModeError,
} from '@resume/runner';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

interface EchoConfig extends ModeConfig {
  mode: 'echo-review';
  task: string;
  times: number;
}

/** A toy mode: the reviewer answers `times` times, each answer a durable step and a checkpoint. */
const echoReviewMode = defineMode<EchoConfig>({
  name: 'echo-review',
  description: 'a reviewer answers the task a few times',
  startsFrom: { kind: 'task' },
  optionsSchema: z.object({ times: positiveIntegerOption() }),
  configSchema: z.object({ mode: z.literal('echo-review'), task: z.string(), times: z.number().int().min(1) }),
  usesWorkspace: false,
  async start(input) {
    if (input.from !== 'task') throw new Error('echo-review starts from a task');
    const options = parseModeOptions('echo-review', z.object({ times: positiveIntegerOption() }), input.options);
    return { config: { mode: 'echo-review', task: input.task, times: options.times ?? 1 }, events: [] };
  },
  async run(context, config) {
    let last: string | null = null;
    for (let pass = 1; pass <= config.times; pass += 1) {
      const key = `pass-${pass}`;
      const text = await context.session.step(key, async ({ signal }) => {
        const result = await context.models({ name: 'reviewer' }).generate({
          messages: [{ role: 'user', content: `${config.task} (pass ${pass})` }],
          signal,
        });
        return result.message.content;
      });
      if (!context.session.state.messages.some((message) => message.tags?.includes(key)))
        context.session.addMessage({ role: 'assistant', content: text, speaker: 'reviewer', round: pass, tags: [key] });
      if (!context.session.state.checkpoints.some((marked) => marked.label === `pass ${pass}`))
        await context.session.checkpoint(`pass ${pass}`);
      last = text;
    }
    return { conclusion: last };
  },
  describeNext(state, config) {
    return `pass ${state.checkpoints.length + 1} of ${config.times}`;
  },
  followUp: (config, task) => ({ ...config, task }),
});

/** A reviewer model that counts its calls and can be told to fail one. */
function reviewer(failOnCall: number | null = null) {
  const calls: string[] = [];
  const model: ChatModel = {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider: 'toy',
    modelId: 'toy-1',
    async generate(request) {
      calls.push(String(request.messages.at(-1)?.content));
      if (calls.length === failOnCall) throw new Error('the reviewer fell over');
      return {
        message: { role: 'assistant', content: `reviewed: ${request.messages.at(-1)?.content}` },
        toolCalls: [],
        usage: { inputTokens: 1, outputTokens: 1 },
        model: 'toy-1',
        finishReason: 'stop',
      };
    },
  };
  return { calls, resolve: () => model };
}

describe('a mode registered from outside the runner', () => {
  const modes = builtinModes.with(echoReviewMode);

  it('starts, journals its name as the session mode, and lists under it', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const models = reviewer();
    const runner = createRunner({ engine, models: models.resolve, workspaceDir: process.cwd(), modes });
    const result = await runner.start({ mode: 'echo-review', task: 'Check the plan', options: { times: 2 } });
    expect(result).toMatchObject({ status: 'completed', conclusion: 'reviewed: Check the plan (pass 2)' });
    expect(models.calls).toHaveLength(2);
    const state = await engine.readSession(result.sessionId);
    expect(state.header.mode).toBe('echo-review');
    expect(state.checkpoints.map((checkpoint) => checkpoint.label)).toEqual(['pass 1', 'pass 2']);
    expect((await engine.listSessions({ mode: ['echo-review'] })).map((summary) => summary.id)).toEqual([
      result.sessionId,
    ]);
  });

  it('validates its own start options before a session exists', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const runner = createRunner({ engine, models: reviewer().resolve, workspaceDir: process.cwd(), modes });
    await expect(runner.start({ mode: 'echo-review', task: 'Check', options: { times: 0 } })).rejects.toThrow(
      'times must be a whole number of at least 1 (got 0).',
    );
    expect(await engine.listSessions()).toEqual([]);
  });

  it('resumes a failed run without repeating the finished pass, and plans it in its own words', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const failing = reviewer(2);
    const first = createRunner({ engine, models: failing.resolve, workspaceDir: process.cwd(), modes });
    const failed = await first.start({ mode: 'echo-review', task: 'Check', options: { times: 3 } });
    expect(failed.status).toBe('failed');
    expect(failed.resumeCommand).toBe(`conclave --resume ${failed.sessionId}`);

    const models = reviewer();
    const second = createRunner({ engine, models: models.resolve, workspaceDir: process.cwd(), modes });
    expect((await second.plan(failed.sessionId)).next).toBe('pass 2 of 3');
    const resumed = await second.resume(failed.sessionId, { force: true });
    expect(resumed).toMatchObject({ status: 'completed', conclusion: 'reviewed: Check (pass 3)' });
    expect(models.calls).toEqual(['Check (pass 2)', 'Check (pass 3)']);
  });

  it('continues a finished run as the mode says (here: itself, with the follow-up as task)', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const runner = createRunner({ engine, models: reviewer().resolve, workspaceDir: process.cwd(), modes });
    const done = await runner.start({ mode: 'echo-review', task: 'Check' });
    const followUp = await runner.continue(done.sessionId, 'And the tests?');
    expect(followUp).toMatchObject({ status: 'completed', conclusion: 'reviewed: And the tests? (pass 1)' });
    expect((await engine.readSession(followUp.sessionId)).header).toMatchObject({
      mode: 'echo-review',
      parentId: done.sessionId,
    });
  });

  it('a runner without the mode refuses its sessions with a typed error naming the mode and the registered ones', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const failing = reviewer(1);
    const withMode = createRunner({ engine, models: failing.resolve, workspaceDir: process.cwd(), modes });
    const failed = await withMode.start({ mode: 'echo-review', task: 'Check' });
    const without = createRunner({ engine, models: reviewer().resolve, workspaceDir: process.cwd() });
    const error = await without.resume(failed.sessionId).catch((caught: unknown) => caught);
    expect(UnknownModeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'unknown-mode',
      mode: 'echo-review',
      sessionId: failed.sessionId,
      registered: ['discussion', 'iterative', 'orchestrated', 'prompt', 'chain'],
    });
    expect((error as Error).message).toContain('"echo-review"');
    expect((error as Error).message).toContain('discussion, iterative, orchestrated, prompt, chain');
    await expect(without.start({ mode: 'echo-review', task: 'Check' })).rejects.toThrow(
      'Unknown mode "echo-review" (registered modes: discussion, iterative, orchestrated, prompt, chain).',
    );
  });

  it('refuses a second mode under a taken name and a name the journal would refuse', () => {
    expect(() => builtinModes.with({ ...echoReviewMode, name: 'discussion' } as never)).toThrow(
      'Two modes are registered as "discussion".',
    );
    expect(() => builtinModes.with({ ...echoReviewMode, name: 'Echo Review' } as never)).toThrow(
      'Mode name "Echo Review" is not valid.',
    );
  });
});
