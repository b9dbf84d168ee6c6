// Building and adjusting run configs: defaults for agents, the overrides a resume or a
// continue may apply (models, rounds, chunks), and what a follow-up runs as. Pure.
import type { SessionState } from '@resume/core';
import { UsageError } from '@resume/core/spec';
import { type AgentSpec, agentSpecSchema, defaultDiscussionAgents, defaultJudge } from '../modes/agent-spec.js';
import type { RunConfig } from './run-config.js';
import type { AgentInput, ContinueOptions, ResumeOptions } from './runner-types.js';

export const DEFAULT_MAX_ROUNDS = 4;
export const DEFAULT_CHUNK_SIZE = 4000;
export const DEFAULT_MAX_ITERATIONS = 20;
export const DEFAULT_BUDGET_TOKENS = 8000;

export function completeAgent(input: AgentInput, fallback: AgentSpec | undefined): AgentSpec {
  return agentSpecSchema.parse({
    ...input,
    systemPrompt: input.systemPrompt ?? fallback?.systemPrompt ?? `You are ${input.name}.`,
  });
}

/** Agent names key the steps and messages of a run, so they must be distinct (and not the judge's). */
export function checkAgentNames(agents: AgentSpec[], reserved: string[]): void {
  const seen = new Set<string>(reserved);
  for (const agent of agents) {
    if (seen.has(agent.name)) {
      throw new UsageError(`Two participants are named "${agent.name}".`, {
        hint: 'Give every agent a distinct name (the judge is called "judge" unless configured otherwise).',
      });
    }
    seen.add(agent.name);
  }
}

export function discussionAgents(agents: AgentInput[] | undefined): AgentSpec[] {
  if (!agents || agents.length === 0) return defaultDiscussionAgents;
  return agents.map((agent, index) =>
    completeAgent(
      agent,
      defaultDiscussionAgents.find((known) => known.name === agent.name) ?? defaultDiscussionAgents[index % 3],
    ),
  );
}

function withModels(agents: AgentSpec[], models: string[] | undefined): AgentSpec[] {
  if (!models || models.length === 0) return agents;
  return agents.map((agent, index) => ({ ...agent, model: models[index % models.length] ?? agent.model }));
}

export function positiveInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`${name} must be a whole number of at least 1 (got ${value}).`);
  return value;
}

export function replaceModels(config: RunConfig, replacements: Map<string, string>): RunConfig {
  if (replacements.size === 0) return config;
  const swap = (agent: AgentSpec): AgentSpec => {
    const replacement = agent.model ? replacements.get(agent.model) : undefined;
    return replacement ? { ...agent, model: replacement } : agent;
  };
  switch (config.mode) {
    case 'discussion':
      return { ...config, agents: config.agents.map(swap), judge: swap(config.judge) };
    case 'iterative':
      return { ...config, agents: config.agents.map(swap) };
    case 'orchestrated':
    case 'prompt':
      return { ...config, lead: swap(config.lead) };
    case 'chain':
      return config;
  }
}

export function applyOverrides(config: RunConfig, overrides: ResumeOptions | ContinueOptions): RunConfig {
  switch (config.mode) {
    case 'discussion':
      return {
        ...config,
        agents: withModels(config.agents, overrides.models),
        ...(overrides.forceConsensus !== undefined ? { forceConsensus: overrides.forceConsensus } : {}),
        ...(overrides.maxRounds !== undefined
          ? { maxRounds: positiveInteger(overrides.maxRounds, 'maxRounds', config.maxRounds) }
          : {}),
      };
    case 'iterative':
      return {
        ...config,
        agents: withModels(config.agents, overrides.models),
        ...('startChunk' in overrides && overrides.startChunk !== undefined
          ? { startChunk: overrides.startChunk }
          : {}),
      };
    case 'orchestrated':
    case 'prompt':
      return { ...config, lead: withModels([config.lead], overrides.models)[0] ?? config.lead };
    case 'chain':
      return config;
  }
}

/** What a follow-up runs as: discussions and agents continue as themselves; a workflow's agents discuss it. */
export function childConfig(config: RunConfig, task: string, parent: SessionState): RunConfig {
  switch (config.mode) {
    case 'discussion':
      return { ...config, task };
    case 'orchestrated':
    case 'prompt':
      return {
        mode: 'orchestrated',
        task,
        lead: config.lead,
        tools: config.tools,
        maxIterations: config.maxIterations,
      };
    case 'iterative':
      return {
        mode: 'discussion',
        task,
        agents: config.agents,
        judge: defaultJudge,
        maxRounds: DEFAULT_MAX_ROUNDS,
        forceConsensus: false,
      };
    case 'chain': {
      const speakers = [
        ...new Set(parent.messages.filter((message) => message.role === 'assistant').map((message) => message.speaker)),
      ];
      const agents = speakers
        .filter((name): name is string => typeof name === 'string')
        .map((name) => completeAgent({ name }, undefined));
      return {
        mode: 'discussion',
        task,
        agents: agents.length > 0 ? agents : defaultDiscussionAgents,
        judge: defaultJudge,
        maxRounds: DEFAULT_MAX_ROUNDS,
        forceConsensus: false,
      };
    }
  }
}

/**
 * `--start-chunk N` on a resume: only iterative sessions have chunks; a chunk that already
 * ran cannot be redone in place (the journal is append-only: branch from before it); a chunk
 * past the end does not exist. Chunks between the next one and N are skipped, and the plan
 * and the run both say so.
 */
export function checkStartChunk(state: SessionState, config: RunConfig, startChunk: number | undefined): void {
  if (startChunk === undefined) return;
  const id = state.header.id;
  if (config.mode !== 'iterative')
    throw new UsageError(`--start-chunk applies to iterative sessions; session ${id} is a ${config.mode} session.`, {
      hint:
        config.mode === 'discussion'
          ? `Resume it without --start-chunk, or go back to a round: conclave --resume ${id} --from-checkpoint "round N"`
          : 'Resume it without --start-chunk (see: conclave checkpoints list <id> for --from-checkpoint).',
    });
  const progress = state.data.iterative as { chunk?: number; totalChunks?: number } | undefined;
  const done = typeof progress?.chunk === 'number' ? progress.chunk : 0;
  const total = typeof progress?.totalChunks === 'number' ? progress.totalChunks : null;
  if (total !== null && startChunk > total)
    throw new UsageError(`--start-chunk ${startChunk}: session ${id} has ${total} chunks.`, {
      hint: `Pick a chunk from ${done + 1} to ${total}.`,
    });
  if (startChunk <= done)
    throw new UsageError(
      `--start-chunk ${startChunk}: chunk${done > 1 ? `s 1–${done} are` : ' 1 is'} already done in session ${id}, and a resume never redoes them in place.`,
      {
        hint:
          startChunk === 1
            ? `Start a new session, or resume without --start-chunk to go on at chunk ${done + 1}.`
            : `Redo from chunk ${startChunk} as a branch: conclave --resume ${id} --from-checkpoint "chunk ${startChunk - 1}/${total ?? '?'}"`,
      },
    );
}
