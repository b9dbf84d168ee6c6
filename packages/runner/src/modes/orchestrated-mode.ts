// The orchestrated mode: a lead agent works in the workspace with tools.
import { lazySchema, once } from '@resume/core/lazy-schema';
import { z } from 'zod';
import { completeAgent, DEFAULT_MAX_ITERATIONS, withModels } from '../runner/run-config-building.js';
import { agentSpecSchema, defaultLead } from './agent-spec.js';
import { completedStepCount, defineMode, type Mode, type ModeConfig, type RemainingCalls } from './mode.js';
import { parseModeOptions, positiveIntegerOption } from './mode-options.js';

const schemas = once(() => ({
  config: z.object({
    mode: z.literal('orchestrated'),
    task: z.string(),
    lead: agentSpecSchema,
    tools: z.array(z.string()),
    /** MCP servers whose tools the lead may call (sessions recorded before MCP have none). */
    mcp: z.array(z.string()).optional(),
    maxIterations: z.number().int().min(1),
  }),
  options: z.object({
    maxIterations: positiveIntegerOption(),
    tools: z.array(z.string().min(1)).optional(),
    // A list in code; `a,b` from the command line (--mcp).
    mcp: z
      .union([
        z.array(z.string().min(1)),
        z.string().transform((names) =>
          names
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean),
        ),
      ])
      .optional(),
  }),
}));
export const orchestratedConfigSchema = lazySchema(() => schemas().config);
export type OrchestratedConfig = z.infer<typeof orchestratedConfigSchema>;

/** What lead-agent modes (orchestrated, prompt) share: a lead, its tools and an iteration limit. */
type LeadConfig = ModeConfig & Pick<OrchestratedConfig, 'lead' | 'tools' | 'mcp' | 'maxIterations'>;

export const leadModeParts = {
  describeNext(state: Parameters<Mode['describeNext']>[0]): string {
    const last = state.steps.at(-1);
    const match = last ? /^turn-(\d+)\/(?:tool-\d+\/)?(.+)$/.exec(last.key) : null;
    if (!last || !match) return 'turn 1';
    const turn = Number(match[1]);
    return last.status === 'completed' ? `turn ${turn} (after ${match[2]})` : `turn ${turn}, ${match[2]}`;
  },
  remainingCalls(state: Parameters<Mode['describeNext']>[0], config: LeadConfig): RemainingCalls {
    const turns = completedStepCount(state, /^turn-\d+\/[^/]+$/);
    return { calls: Math.max(0, config.maxIterations - turns), atMost: true };
  },
  applyOverrides<Config extends LeadConfig>(config: Config, overrides: { models?: string[] }): Config {
    return { ...config, lead: withModels([config.lead], overrides.models)[0] ?? config.lead };
  },
  mapAgents<Config extends LeadConfig>(config: Config, swap: (agent: Config['lead']) => Config['lead']): Config {
    return { ...config, lead: swap(config.lead) };
  },
  /** A follow-up goes on as an orchestrated run with the same lead and tools. */
  followUp(config: LeadConfig, task: string): OrchestratedConfig {
    return {
      mode: 'orchestrated',
      task,
      lead: config.lead,
      tools: config.tools,
      ...(config.mcp && config.mcp.length > 0 ? { mcp: config.mcp } : {}),
      maxIterations: config.maxIterations,
    };
  },
};

export const orchestratedMode = defineMode<OrchestratedConfig>({
  name: 'orchestrated',
  description: 'a lead agent works in the workspace with tools (read, list and write files, allowed commands)',
  startsFrom: { kind: 'task' },
  optionsSchema: lazySchema(() => schemas().options),
  commandLine: [
    {
      option: 'mcp',
      flags: '--mcp <servers>',
      description:
        'orchestrated: MCP servers (mcp.servers in the config) whose tools the lead may call, comma-separated',
      value: 'text',
    },
  ],
  configSchema: orchestratedConfigSchema,
  usesWorkspace: true,
  async start(input, setup) {
    if (input.from !== 'task') throw new Error('orchestrated runs start from a task');
    const options = parseModeOptions('orchestrated', schemas().options, input.options);
    const config: OrchestratedConfig = {
      mode: 'orchestrated',
      task: input.task,
      lead: input.agents?.[0] ? completeAgent(input.agents[0], defaultLead) : defaultLead,
      tools: options.tools ?? [],
      ...(options.mcp && options.mcp.length > 0 ? { mcp: options.mcp } : {}),
      maxIterations: options.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    };
    setup.checkTools(config.tools, null);
    setup.checkMcpServers(config.mcp ?? [], null);
    return { config, events: [] };
  },
  async run(context, config) {
    const { runOrchestrated } = await import('./orchestrated.js');
    return runOrchestrated(context, {
      lead: config.lead,
      tools: [...context.tools(config.tools, null), ...(await context.mcpTools(config.mcp ?? [], null))],
      maxIterations: config.maxIterations,
    });
  },
  describeNext: (state) => leadModeParts.describeNext(state),
  remainingCalls: (state, config) => leadModeParts.remainingCalls(state, config),
  applyOverrides: (config, overrides) => leadModeParts.applyOverrides(config, overrides),
  mapAgents: (config, swap) => leadModeParts.mapAgents(config, swap),
  requestedTools: (config) => config.tools,
  followUp: (config, task) => leadModeParts.followUp(config, task),
});
