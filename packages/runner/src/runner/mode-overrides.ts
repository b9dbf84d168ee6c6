// What a resume or a continue may change in a recorded run, as the run's mode allows it:
// `--models`, `--max-rounds`, `--force-consensus`, `--start-chunk`, replaced models.
import type { SessionState } from '@resume/core';
import { UsageError } from '@resume/core/spec';
import type { Mode, RunOverrides } from '../modes/mode.js';
import { withNextStep } from './next-step.js';
import type { RunConfig } from './run-config.js';

/** The config a resume or a continue runs with: the mode applies `--models`, `--max-rounds`... */
export function applyOverrides(mode: Mode, config: RunConfig, overrides: RunOverrides): RunConfig {
  return mode.applyOverrides ? mode.applyOverrides(config, overrides) : config;
}

/** Models the resume prompt replaced (no longer offered) swapped in every agent of the run. */
export function replaceModels(mode: Mode, config: RunConfig, replacements: Map<string, string>): RunConfig {
  if (replacements.size === 0 || !mode.mapAgents) return config;
  return mode.mapAgents(config, (agent) => {
    const replacement = agent.model ? replacements.get(agent.model) : undefined;
    return replacement ? { ...agent, model: replacement } : agent;
  });
}

/**
 * `--start-chunk N` on a resume: only modes that work in chunks accept it, and they refuse a
 * chunk that already ran or does not exist (see the iterative mode).
 */
export function checkStartChunk(
  state: SessionState,
  mode: Mode,
  config: RunConfig,
  startChunk: number | undefined,
): void {
  if (startChunk === undefined) return;
  if (mode.checkStartChunk) {
    mode.checkStartChunk(state, config, startChunk);
    return;
  }
  const id = state.header.id;
  throw withNextStep(
    new UsageError(`A start chunk applies to iterative sessions; session ${id} is a ${mode.name} session.`),
    { kind: 'resume-without-start-chunk', sessionId: id },
  );
}
