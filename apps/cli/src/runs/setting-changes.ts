// What the config now says otherwise than a session recorded: its agents, the judge's prompt,
// `maxRounds`. A resume runs as recorded; the plan (`--dry-run`) and the run say so, with the
// config's file and how to use the config's value instead.
import type { SessionState } from '@resume/core';
import type { SettingChange } from '@resume/runner';
import type { LoadedConfig } from '@resume/runner/config';
import { z } from 'zod';
import { truncate } from '../output/format.js';
import type { RunFlags } from './run-flags.js';

const recordedAgentSchema = z.object({
  name: z.string(),
  model: z.string().nullish(),
  systemPrompt: z.string().nullish(),
});
const recordedRunSchema = z.object({
  task: z.string().optional(),
  agents: z.array(recordedAgentSchema).optional(),
  judge: recordedAgentSchema.optional(),
  maxRounds: z.number().optional(),
});

/** The settings the config gives otherwise than the session recorded, for the resume plan. */
export function settingChanges(state: SessionState, loaded: LoadedConfig, flags: RunFlags): SettingChange[] {
  const parsed = recordedRunSchema.safeParse(state.header.options.run);
  if (!parsed.success) return [];
  const recorded = parsed.data;
  const { config, sources } = loaded;
  const fromFile = (key: string) => {
    const source = sources[key];
    return source !== undefined && source !== 'default' ? source : null;
  };
  const newRun = `a new session runs with the config's: conclave "${truncate(recorded.task ?? 'task', 40)}"`;
  const changes: SettingChange[] = [];

  const roundsSource = fromFile('discussion.maxRounds');
  const configuredRounds = config.discussion.maxRounds;
  if (
    roundsSource !== null &&
    recorded.maxRounds !== undefined &&
    recorded.maxRounds !== configuredRounds &&
    flags.modeOptions.maxRounds === undefined
  )
    changes.push({
      setting: 'discussion.maxRounds',
      message: `discussion.maxRounds is ${configuredRounds} in ${roundsSource}, ${recorded.maxRounds} in the session: the resume uses ${recorded.maxRounds} (add --max-rounds ${configuredRounds} to use ${configuredRounds})`,
    });

  const agentsSource = fromFile('agents');
  if (agentsSource !== null && config.agents && recorded.agents && !flags.models?.length) {
    const configured = config.agents;
    const sameNames =
      configured.length === recorded.agents.length &&
      configured.every((agent, index) => agent.name === recorded.agents?.[index]?.name);
    const samePrompts =
      sameNames &&
      configured.every((agent, index) => !agent.system || agent.system === recorded.agents?.[index]?.systemPrompt);
    const sameModels =
      sameNames && configured.every((agent, index) => !agent.model || agent.model === recorded.agents?.[index]?.model);
    const names = (agents: readonly { name: string }[]) => agents.map((agent) => agent.name).join(', ');
    if (!sameNames || !samePrompts)
      changes.push({
        setting: 'agents',
        message: `the agents in ${agentsSource} (${names(configured)}) differ from the session's (${names(recorded.agents)}): the resume keeps the session's; ${newRun}`,
      });
    else if (!sameModels)
      changes.push({
        setting: 'agents',
        message: `the agents' models in ${agentsSource} differ from the session's: the resume keeps the session's (add --models ${configured.map((agent, index) => agent.model ?? recorded.agents?.[index]?.model ?? '').join(',')} to use the config's)`,
      });
  }

  const judgeSource = fromFile('judge.system');
  if (
    judgeSource !== null &&
    config.judge.system &&
    recorded.judge &&
    config.judge.system !== recorded.judge.systemPrompt
  )
    changes.push({
      setting: 'judge.system',
      message: `the judge's prompt in ${judgeSource} differs from the session's: the resume keeps the session's; ${newRun}`,
    });
  return changes;
}
