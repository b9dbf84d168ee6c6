// What the built-in modes share when they build and adjust run configs: agent defaults,
// distinct names, models by position, whole-number options. Pure.
import { UsageError } from '@resume/core/spec';
import { type AgentSpec, agentSpecSchema, defaultDiscussionAgents } from '../modes/agent-spec.js';
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

/** Other models for the same agents, by position (`--models a,b`). */
export function withModels(agents: AgentSpec[], models: string[] | undefined): AgentSpec[] {
  if (!models || models.length === 0) return agents;
  return agents.map((agent, index) => ({ ...agent, model: models[index % models.length] ?? agent.model }));
}

export function positiveInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`${name} must be a whole number of at least 1 (got ${value}).`);
  return value;
}
