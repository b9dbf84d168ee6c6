// How a session runs, recorded in its header options under `run` so a resume or a
// continue rebuilds exactly the same mode (DESIGN 8). Validated on read: the header is a
// boundary like any file.

import type { SessionState } from '@resume/core';
import { IncompatibleSessionError, type JsonValue } from '@resume/core/spec';
import { z } from 'zod';
import { agentSpecSchema } from '../modes/agent-spec.js';

const variablesSchema = z.record(z.string(), z.string());

export const discussionConfigSchema = z.object({
  mode: z.literal('discussion'),
  task: z.string(),
  agents: z.array(agentSpecSchema).min(1),
  judge: agentSpecSchema,
  maxRounds: z.number().int().min(1),
  forceConsensus: z.boolean(),
});

export const iterativeConfigSchema = z.object({
  mode: z.literal('iterative'),
  task: z.string(),
  agents: z.array(agentSpecSchema).min(1),
  projectPath: z.string().nullable(),
  chunkSize: z.number().int().min(1),
  startChunk: z.number().int().min(1),
});

export const orchestratedConfigSchema = z.object({
  mode: z.literal('orchestrated'),
  task: z.string(),
  lead: agentSpecSchema,
  tools: z.array(z.string()),
  maxIterations: z.number().int().min(1),
});

export const chainConfigSchema = z.object({
  mode: z.literal('chain'),
  workflowPath: z.string().nullable(),
  variables: variablesSchema,
  /** How steps are keyed in the journal; sessions recorded before step ids have none (by position). */
  stepKeys: z.enum(['position', 'id']).optional(),
});

export const promptConfigSchema = z.object({
  mode: z.literal('prompt'),
  promptPath: z.string().nullable(),
  task: z.string(),
  lead: agentSpecSchema,
  tools: z.array(z.string()),
  maxIterations: z.number().int().min(1),
});

export const runConfigSchema = z.discriminatedUnion('mode', [
  discussionConfigSchema,
  iterativeConfigSchema,
  orchestratedConfigSchema,
  chainConfigSchema,
  promptConfigSchema,
]);
export type RunConfig = z.infer<typeof runConfigSchema>;
export type RunMode = RunConfig['mode'];

export const RUN_OPTIONS_KEY = 'run';

/** The run config a session recorded; a session without one was not started by the runner. */
export function readRunConfig(state: SessionState): RunConfig {
  const parsed = runConfigSchema.safeParse(state.header.options[RUN_OPTIONS_KEY]);
  if (!parsed.success) {
    throw new IncompatibleSessionError(state.header.id, [
      `it has no run configuration this version understands (mode ${state.header.mode})`,
    ]);
  }
  return parsed.data;
}

export function runConfigAsJson(config: RunConfig): JsonValue {
  return JSON.parse(JSON.stringify(config)) as JsonValue;
}
