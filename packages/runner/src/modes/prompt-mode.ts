// The prompt mode: a `.prompt.md` file (front matter: model, tools, variables) runs as a
// lead agent with the prompt's tools. The recorded file decides; an edit is adopted only
// with --use-edited-spec.
import path from 'node:path';
import { lazySchema, once } from '@resume/core/lazy-schema';
import { z } from 'zod';
import { DEFAULT_MAX_ITERATIONS } from '../runner/run-config-building.js';
import { agentSpecSchema, defaultLead } from './agent-spec.js';
import { defineMode } from './mode.js';
import { leadModeParts } from './orchestrated-mode.js';

const schemas = once(() => ({
  config: z.object({
    mode: z.literal('prompt'),
    promptPath: z.string().nullable(),
    task: z.string(),
    lead: agentSpecSchema,
    tools: z.array(z.string()),
    /** MCP servers of the prompt file's `mcp:` (sessions recorded before MCP have none). */
    mcp: z.array(z.string()).optional(),
    maxIterations: z.number().int().min(1),
  }),
}));
export const promptConfigSchema = lazySchema(() => schemas().config);
export type PromptConfig = z.infer<typeof promptConfigSchema>;

async function promptFiles() {
  const [{ parsePromptFile }, { overrideVariables, renderTemplate }] = await Promise.all([
    import('../workflow/prompt-file.js'),
    import('../workflow/template.js'),
  ]);
  return { overrideVariables, parsePromptFile, renderTemplate };
}

export const promptMode = defineMode<PromptConfig>({
  name: 'prompt',
  description: 'a .prompt.md file runs as a lead agent with the tools its front matter names (conclave run)',
  startsFrom: { kind: 'file', matches: (filePath) => filePath.endsWith('.prompt.md'), describe: 'a .prompt.md file' },
  configSchema: promptConfigSchema,
  usesWorkspace: true,
  spec: {
    kind: 'prompt',
    path: (config) => config.promptPath,
    async adoptEdited(text, config, setup) {
      const prompt = (await promptFiles()).parsePromptFile(text, config.promptPath);
      setup.checkTools(prompt.frontMatter.tools, config.promptPath);
      setup.checkMcpServers(prompt.frontMatter.mcp, config.promptPath);
      return {
        ...config,
        lead: {
          ...config.lead,
          ...(prompt.frontMatter.model ? { model: prompt.frontMatter.model } : {}),
          ...(prompt.frontMatter.provider ? { provider: prompt.frontMatter.provider } : {}),
        },
        tools: prompt.frontMatter.tools,
        mcp: prompt.frontMatter.mcp,
        maxIterations: prompt.frontMatter.max_iterations ?? config.maxIterations,
      };
    },
  },
  async start(input, setup) {
    if (input.from !== 'file') throw new Error('prompt runs start from a .prompt.md file');
    const { filePath, text } = input;
    const { overrideVariables, parsePromptFile, renderTemplate } = await promptFiles();
    const prompt = parsePromptFile(text, filePath);
    const variables = overrideVariables(prompt.frontMatter.variables, input.variables, {
      file: filePath,
      what: 'prompt file',
      declareIn: ' in the front matter',
    });
    const task = renderTemplate(prompt.body, { variables }, { file: filePath, key: 'body' });
    const config: PromptConfig = {
      mode: 'prompt',
      promptPath: filePath,
      task,
      lead: {
        ...defaultLead,
        name: prompt.frontMatter.name ?? defaultLead.name,
        ...(prompt.frontMatter.model ? { model: prompt.frontMatter.model } : {}),
        ...(prompt.frontMatter.provider ? { provider: prompt.frontMatter.provider } : {}),
      },
      tools: prompt.frontMatter.tools,
      ...(prompt.frontMatter.mcp.length > 0 ? { mcp: prompt.frontMatter.mcp } : {}),
      maxIterations: prompt.frontMatter.max_iterations ?? DEFAULT_MAX_ITERATIONS,
    };
    setup.checkTools(config.tools, filePath);
    setup.checkMcpServers(prompt.frontMatter.mcp, filePath);
    const hash = setup.hashText(text);
    return {
      config,
      title: prompt.frontMatter.name ?? path.basename(filePath),
      events: [
        { type: 'spec-recorded', kind: 'prompt', path: filePath, hash, blob: null, content: text },
        { type: 'variables-set', variables },
        {
          type: 'message-added',
          message: { role: 'user', content: task, speaker: 'user', round: null, tags: ['task'] },
        },
      ],
    };
  },
  async run(context, config) {
    // The recorded prompt file decides the tools (the latest one: an edit adopted with
    // --use-edited-spec is recorded), so the tools announced are the tools offered.
    const { parsePromptFile } = await promptFiles();
    const prompt = parsePromptFile(await context.recordedSpec('prompt'), config.promptPath);
    const { runOrchestrated } = await import('./orchestrated.js');
    return runOrchestrated(context, {
      lead: config.lead,
      tools: [
        ...context.tools(prompt.frontMatter.tools, config.promptPath),
        ...(await context.mcpTools(prompt.frontMatter.mcp, config.promptPath)),
      ],
      maxIterations: prompt.frontMatter.max_iterations ?? config.maxIterations,
    });
  },
  describeNext: (state) => leadModeParts.describeNext(state),
  remainingCalls: (state, config) => leadModeParts.remainingCalls(state, config),
  applyOverrides: (config, overrides) => leadModeParts.applyOverrides(config, overrides),
  mapAgents: (config, swap) => leadModeParts.mapAgents(config, swap),
  async requestedTools(config, edited) {
    if (edited === null) return config.tools;
    try {
      return (await promptFiles()).parsePromptFile(edited, config.promptPath).frontMatter.tools;
    } catch {
      // An invalid edit is reported by the resume itself, with the file and key.
      return config.tools;
    }
  },
  followUp: (config, task) => leadModeParts.followUp(config, task),
});
