// The discussion mode: agents speak in rounds until the judge declares consensus.
import { lazySchema, once } from '@resume/core/lazy-schema';
import { z } from 'zod';
import {
  checkAgentNames,
  completeAgent,
  DEFAULT_MAX_ROUNDS,
  discussionAgents,
  positiveInteger,
  withModels,
} from '../runner/run-config-building.js';
import { agentSpecSchema, defaultJudge } from './agent-spec.js';
import { completedStepCount, defineMode } from './mode.js';
import { parseModeOptions, positiveIntegerOption } from './mode-options.js';

const schemas = once(() => ({
  config: z.object({
    mode: z.literal('discussion'),
    task: z.string(),
    agents: z.array(agentSpecSchema).min(1),
    judge: agentSpecSchema,
    maxRounds: z.number().int().min(1),
    forceConsensus: z.boolean(),
  }),
  options: z.object({ maxRounds: positiveIntegerOption(), forceConsensus: z.boolean().optional() }),
}));
export const discussionConfigSchema = lazySchema(() => schemas().config);
export type DiscussionConfig = z.infer<typeof discussionConfigSchema>;

export const discussionMode = defineMode<DiscussionConfig>({
  name: 'discussion',
  description: 'agents speak in rounds until a judge declares consensus (the default)',
  startsFrom: { kind: 'task' },
  optionsSchema: lazySchema(() => schemas().options),
  commandLine: [
    { option: 'maxRounds', flags: '--max-rounds <n>', description: 'discussion: stop after N rounds', value: 'count' },
    {
      option: 'forceConsensus',
      flags: '--force-consensus',
      description: 'the judge concludes at once',
      value: 'switch',
    },
  ],
  configSchema: discussionConfigSchema,
  usesWorkspace: false,
  async start(input) {
    if (input.from !== 'task') throw new Error('discussion runs start from a task');
    const options = parseModeOptions('discussion', schemas().options, input.options);
    const config: DiscussionConfig = {
      mode: 'discussion',
      task: input.task,
      agents: discussionAgents(input.agents),
      judge: input.judge ? completeAgent(input.judge, defaultJudge) : defaultJudge,
      maxRounds: options.maxRounds ?? DEFAULT_MAX_ROUNDS,
      forceConsensus: options.forceConsensus ?? false,
    };
    checkAgentNames(config.agents, [config.judge.name]);
    return { config, events: [] };
  },
  async run(context, config) {
    const { runDiscussion } = await import('./discussion.js');
    return runDiscussion(context, config);
  },
  describeNext(state, config) {
    const last = state.steps.at(-1);
    const speakers = [...config.agents.map((agent) => agent.name), config.judge.name];
    const match = last ? /^round-(\d+)\/(.+)$/.exec(last.key) : null;
    // "round 2 of 4": the prompt says how far the discussion got, not only where it goes on.
    const at = (round: number, speaker: string | undefined) =>
      `round ${round} of ${config.maxRounds}, agent ${speaker}`;
    if (!last || !match) return at(1, speakers[0]);
    const round = Number(match[1]);
    const speaker = match[2] ?? '';
    if (last.status !== 'completed') return at(round, speaker);
    const index = speakers.indexOf(speaker);
    const next = speakers[index + 1];
    return next === undefined ? at(round + 1, speakers[0]) : at(round, next);
  },
  remainingCalls(state, config) {
    const speakers = config.agents.length + 1;
    return {
      calls: Math.max(0, config.maxRounds * speakers - completedStepCount(state, /^round-\d+\//)),
      atMost: true,
    };
  },
  applyOverrides(config, overrides) {
    return {
      ...config,
      agents: withModels(config.agents, overrides.models, { oneAgentPerModel: overrides.newSession ?? false }),
      ...(overrides.forceConsensus !== undefined ? { forceConsensus: overrides.forceConsensus } : {}),
      ...(overrides.maxRounds !== undefined
        ? { maxRounds: positiveInteger(overrides.maxRounds, 'maxRounds', config.maxRounds) }
        : {}),
    };
  },
  mapAgents: (config, swap) => ({ ...config, agents: config.agents.map(swap), judge: swap(config.judge) }),
  followUp: (config, task) => ({ ...config, task }),
});
