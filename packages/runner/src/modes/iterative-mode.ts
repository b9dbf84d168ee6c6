// The iterative mode: agents work through a project file chunk by chunk.
import { lazySchema, once } from '@resume/core/lazy-schema';
import { UsageError } from '@resume/core/spec';
import { z } from 'zod';
import { withNextStep } from '../runner/next-step.js';
import {
  checkAgentNames,
  DEFAULT_CHUNK_SIZE,
  DEFAULT_MAX_ROUNDS,
  discussionAgents,
  withModels,
} from '../runner/run-config-building.js';
import { agentSpecSchema, defaultJudge } from './agent-spec.js';
import { chunkOfStep, chunksDone, chunksPassedOver } from './iterative-chunks.js';
import { defineMode } from './mode.js';
import { parseModeOptions, positiveIntegerOption } from './mode-options.js';

const schemas = once(() => ({
  config: z.object({
    mode: z.literal('iterative'),
    task: z.string(),
    agents: z.array(agentSpecSchema).min(1),
    projectPath: z.string().nullable(),
    chunkSize: z.number().int().min(1),
    startChunk: z.number().int().min(1),
  }),
  options: z.object({
    /** The project file (workspace-relative or absolute). */
    project: z.string().min(1, 'must name a file').optional(),
    chunkSize: positiveIntegerOption(),
    startChunk: positiveIntegerOption(),
  }),
}));
export const iterativeConfigSchema = lazySchema(() => schemas().config);
export type IterativeConfig = z.infer<typeof iterativeConfigSchema>;

export const iterativeMode = defineMode<IterativeConfig>({
  name: 'iterative',
  roundUnit: 'chunk',
  description: 'agents work through a project file chunk by chunk (--project <file>)',
  startsFrom: { kind: 'task' },
  optionsSchema: lazySchema(() => schemas().options),
  commandLine: [
    {
      option: 'project',
      flags: '--project <file>',
      description: 'iterative mode: the file to work through chunk by chunk',
      value: 'text',
    },
    {
      option: 'startChunk',
      flags: '--start-chunk <n>',
      description: 'iterative mode: start at chunk N',
      value: 'count',
    },
  ],
  configSchema: iterativeConfigSchema,
  usesWorkspace: true,
  async start(input, setup) {
    if (input.from !== 'task') throw new Error('iterative runs start from a task');
    const options = parseModeOptions('iterative', schemas().options, input.options);
    if (!options.project) {
      throw withNextStep(new UsageError('Iterative mode needs a project file.'), { kind: 'give-a-project-file' });
    }
    const text = await setup.readFile(options.project, 'project');
    const config: IterativeConfig = {
      mode: 'iterative',
      task: input.task,
      agents: discussionAgents(input.agents),
      projectPath: options.project,
      chunkSize: options.chunkSize ?? DEFAULT_CHUNK_SIZE,
      startChunk: options.startChunk ?? 1,
    };
    checkAgentNames(config.agents, []);
    return {
      config,
      events: [
        {
          type: 'spec-recorded',
          kind: 'project',
          path: options.project,
          hash: setup.hashText(text),
          blob: null,
          content: text,
        },
      ],
    };
  },
  async run(context, config) {
    const { runIterative } = await import('./iterative.js');
    return runIterative(context, {
      ...config,
      projectText: await context.recordedSpec('project'),
      outputDir: `conclave-output/${context.session.id}`,
    });
  },
  describeNext(state, config) {
    const progress = state.data.iterative as { chunk?: number; totalChunks?: number } | undefined;
    const done = typeof progress?.chunk === 'number' ? progress.chunk : Math.max(0, config.startChunk - 1);
    const total = typeof progress?.totalChunks === 'number' ? progress.totalChunks : null;
    if (total !== null && done >= total) return 'writing the outputs';
    const next = Math.max(done + 1, config.startChunk);
    const of = total === null ? '' : ` of ${total}`;
    if (next === done + 1) return `chunk ${next}${of}`;
    const skipped = next - 1 === done + 1 ? `chunk ${done + 1}` : `chunks ${done + 1}–${next - 1}`;
    return `chunk ${next}${of} (${skipped} skipped by --start-chunk)`;
  },
  // A chunk that already ran cannot be redone in place (the journal is append-only: branch
  // from before it); a chunk past the end does not exist. Chunks between are skipped.
  checkStartChunk(state, _config, startChunk) {
    const id = state.header.id;
    const progress = state.data.iterative as { chunk?: number; totalChunks?: number } | undefined;
    const done = typeof progress?.chunk === 'number' ? progress.chunk : 0;
    const total = typeof progress?.totalChunks === 'number' ? progress.totalChunks : null;
    if (total !== null && startChunk > total)
      throw new UsageError(`Start chunk ${startChunk}: session ${id} has ${total} chunks.`, {
        hint: `Pick a chunk from ${done + 1} to ${total}.`,
      });
    if (startChunk <= done)
      throw withNextStep(
        new UsageError(
          `Start chunk ${startChunk}: chunk${done > 1 ? `s 1–${done} are` : ' 1 is'} already done in session ${id}, and a resume never redoes them in place.`,
        ),
        startChunk === 1
          ? { kind: 'go-on-at-chunk', sessionId: id, chunk: done + 1 }
          : {
              kind: 'redo-from-checkpoint',
              sessionId: id,
              chunk: startChunk,
              checkpoint: `chunk ${startChunk - 1}/${total ?? '?'}`,
            },
      );
  },
  remainingCalls(state, config) {
    const progress = state.data.iterative as { totalChunks?: number } | undefined;
    if (typeof progress?.totalChunks !== 'number') return { calls: null, atMost: false };
    const passedOver = chunksPassedOver(state, config.startChunk);
    let chunks = 0;
    for (let chunk = chunksDone(state) + 1; chunk <= progress.totalChunks; chunk += 1)
      if (!passedOver.has(chunk)) chunks += 1;
    return { calls: chunks * config.agents.length, atMost: false };
  },
  skipsStep(state, config, stepKey) {
    const chunk = chunkOfStep(stepKey);
    return chunk !== null && chunksPassedOver(state, config.startChunk).has(chunk);
  },
  applyOverrides(config, overrides) {
    return {
      ...config,
      agents: withModels(config.agents, overrides.models, { oneAgentPerModel: overrides.newSession ?? false }),
      ...(overrides.startChunk !== undefined ? { startChunk: overrides.startChunk } : {}),
    };
  },
  mapAgents: (config, swap) => ({ ...config, agents: config.agents.map(swap) }),
  // A follow-up on worked-through chunks is a question for the same agents: they discuss it.
  followUp: (config, task) => ({
    mode: 'discussion',
    task,
    agents: config.agents,
    judge: defaultJudge,
    maxRounds: DEFAULT_MAX_ROUNDS,
    forceConsensus: false,
  }),
});
