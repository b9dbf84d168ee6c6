// What the built-in modes share when they build and adjust run configs: agent defaults,
// distinct names, models by position, whole-number options. Pure.
import { UsageError } from '@resume/core/spec';
import { type AgentSpec, agentSpecSchema, agentsForModels, defaultDiscussionAgents } from '../modes/agent-spec.js';
import type { AgentInput } from '../modes/mode.js';

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

/**
 * `--models a,b` on agents that already exist. A resume goes on with the same agents (the
 * journal names them), so the models replace theirs by position. A follow-up is a new session:
 * like a new run, one agent per model (the recorded agents first, then the default roles).
 */
export function withModels(
  agents: AgentSpec[],
  models: string[] | undefined,
  options: { oneAgentPerModel?: boolean } = {},
): AgentSpec[] {
  if (!models || models.length === 0) return agents;
  if (!options.oneAgentPerModel)
    return agents.map((agent, index) => ({ ...agent, model: models[index % models.length] ?? agent.model }));
  const provider = agents.find((agent) => agent.provider)?.provider;
  const fresh = agentsForModels(models, provider);
  return models.map((model, index) => {
    const recorded = agents[index];
    return recorded ? { ...recorded, model } : (fresh[index] as AgentSpec);
  });
}

export function positiveInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`${name} must be a whole number of at least 1 (got ${value}).`);
  return value;
}
