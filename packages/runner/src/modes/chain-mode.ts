// The chain mode: a workflow spec (YAML) runs its steps in order (agent turns and shell
// commands with retries). The recorded spec decides; an edit is adopted only with
// --use-edited-spec.
import { lazySchema, once } from '@resume/core/lazy-schema';
import { z } from 'zod';
import { completeAgent, DEFAULT_MAX_ROUNDS } from '../runner/run-config-building.js';
import { CURRENT_STEP_KEY_SCHEME, workflowStepTree } from '../workflow/step-ids.js';
import { defaultDiscussionAgents, defaultJudge } from './agent-spec.js';
import { defineMode } from './mode.js';
import { describeParallelGroup, recordedParallelGroup } from './parallel-group-state.js';

const schemas = once(() => ({
  config: z.object({
    mode: z.literal('chain'),
    workflowPath: z.string().nullable(),
    variables: z.record(z.string(), z.string()),
    /** How steps are keyed in the journal; sessions recorded before step ids have none (by position). */
    stepKeys: z.enum(['position', 'id']).optional(),
    /** How checkpoint labels name steps; sessions recorded before labels by id have none (by position). */
    stepLabels: z.enum(['position', 'id']).optional(),
  }),
}));
export const chainConfigSchema = lazySchema(() => schemas().config);
export type ChainConfig = z.infer<typeof chainConfigSchema>;

const workflowSpecs = () => import('../workflow/workflow-spec.js');
const chainRunner = () => import('./chain.js');

export const chainMode = defineMode<ChainConfig>({
  name: 'chain',
  roundUnit: 'step',
  description: 'a workflow spec (YAML) runs its agent and shell steps in order (conclave run)',
  // Registered after the prompt mode: every file that is not a prompt file is a workflow spec.
  startsFrom: { kind: 'file', matches: () => true, describe: 'a workflow spec (.yaml)' },
  configSchema: chainConfigSchema,
  usesWorkspace: true,
  spec: {
    kind: 'workflow',
    path: (config) => config.workflowPath,
    async adoptEdited(text, config, setup) {
      const { checkParallelLimit, checkWorkflow, parseWorkflowSpec } = await workflowSpecs();
      const specPath = config.workflowPath;
      const spec = parseWorkflowSpec(text, specPath);
      checkWorkflow(spec, specPath, Object.keys(config.variables));
      checkParallelLimit(spec, specPath, setup.maxParallel);
      setup.checkMcpServers(spec.mcp, specPath);
      return null;
    },
  },
  async start(input, setup) {
    if (input.from !== 'file') throw new Error('chain runs start from a workflow spec');
    const { checkParallelLimit, checkWorkflow, parseWorkflowSpec, resolveVariables, workflowSpecDocument } =
      await workflowSpecs();
    const { filePath, text } = input;
    const spec = parseWorkflowSpec(text, filePath);
    // The YAML's data goes in the journal with the text: a resume validates it without parsing again.
    const document = workflowSpecDocument(text, filePath);
    const variables = resolveVariables(spec, filePath, input.variables);
    checkWorkflow(spec, filePath, Object.keys(variables));
    checkParallelLimit(spec, filePath, setup.maxParallel);
    setup.checkMcpServers(spec.mcp, filePath);
    // Map items from a file are read (and refused when missing or not JSON) before a session exists.
    const { checkItemFiles } = await import('../workflow/map-items.js');
    await checkItemFiles(spec, setup.workspaceDir);
    const hash = setup.hashText(text);
    const task = spec.description ? `${spec.name}: ${spec.description}` : `Workflow ${spec.name}`;
    return {
      config: {
        mode: 'chain',
        workflowPath: filePath,
        variables,
        stepKeys: CURRENT_STEP_KEY_SCHEME,
        stepLabels: CURRENT_STEP_KEY_SCHEME,
      },
      title: spec.name,
      ...(spec.worktree ? { worktree: true } : {}),
      events: [
        {
          type: 'spec-recorded',
          kind: 'workflow',
          path: filePath,
          hash,
          blob: null,
          content: text,
          ...(document === undefined ? {} : { document }),
        },
        { type: 'variables-set', variables },
        {
          type: 'message-added',
          message: { role: 'user', content: task, speaker: 'user', round: null, tags: ['task'] },
        },
      ],
    };
  },
  preload() {
    Promise.all([workflowSpecs(), chainRunner()]).catch(() => undefined);
  },
  async run(context, config) {
    const [{ parseWorkflowSpec }, { runChain }] = await Promise.all([workflowSpecs(), chainRunner()]);
    const spec = parseWorkflowSpec(await context.recordedSpec('workflow'), config.workflowPath);
    // An edited spec may declare new variables: their defaults apply, recorded values win.
    const variables = { ...spec.variables, ...config.variables };
    return runChain(context, {
      spec,
      file: config.workflowPath,
      variables,
      stepKeys: config.stepKeys ?? 'position',
      stepLabels: config.stepLabels ?? 'position',
      tools: await context.mcpTools(spec.mcp, config.workflowPath),
    });
  },
  describeNext(state) {
    const last = state.steps.at(-1);
    const progress = state.data.chain as { step?: number; totalSteps?: number } | undefined;
    const done = typeof progress?.step === 'number' ? progress.step : 0;
    // A group that is the first step has no chain progress yet: it recorded the total itself.
    const totalSteps = progress?.totalSteps ?? recordedParallelGroup(state)?.totalSteps;
    const total = typeof totalSteps === 'number' ? ` of ${totalSteps}` : '';
    // A shell step still going (keys are `step-N/shell`, or `step[<id>]/shell` since step ids).
    // A validate or goal_seek loop stopped halfway: the check or attempt it got to.
    const scored = state.data.scored as { step?: number; line?: string } | undefined;
    if (scored?.step === done + 1 && typeof scored.line === 'string') return `step ${done + 1}${total}, ${scored.line}`;
    const group = describeParallelGroup(state, done + 1);
    if (group !== null) return `step ${done + 1}${total}, ${group}`;
    const attempts = last?.key.endsWith('/shell') && last.status !== 'completed' ? last.attempts.length : 0;
    return attempts > 0
      ? `step ${done + 1}${total}, attempt ${attempts + (last?.status === 'started' ? 0 : 1)}`
      : `step ${done + 1}${total}`;
  },
  compatibility: (config) => ({ stepKeys: config.stepKeys ?? 'position' }),
  async remainingCalls(state, config, specText) {
    if (specText === null) return { calls: null, atMost: false };
    const { parseWorkflowSpec } = await workflowSpecs();
    let spec: ReturnType<typeof parseWorkflowSpec>;
    try {
      spec = parseWorkflowSpec(specText, config.workflowPath);
    } catch {
      // An invalid edit is reported by the resume itself; the estimate just has no spec.
      return { calls: null, atMost: false };
    }
    const progress = state.data.chain as { step?: number } | undefined;
    const done = typeof progress?.step === 'number' ? progress.step : 0;
    // on_failure fixes run only when a shell step fails: not counted. A parallel group's agent
    // steps count unless they already answered (a group stopped halfway).
    const answered = new Set(state.steps.filter((step) => step.status === 'completed').map((step) => step.key));
    const tree = workflowStepTree(spec.steps);
    // A map step's agent calls depend on how many of its items are left: not estimated.
    const mapAgents = spec.steps.some(
      (step, index) =>
        index >= done &&
        'map' in step &&
        (step.map.do.some((each) => 'agent' in each) || (step.map.reduce !== undefined && 'agent' in step.map.reduce)),
    );
    // Nor do the agent calls of a validate or goal_seek loop, which depend on the scores.
    const loopAgents = spec.steps.some(
      (step, index) =>
        index >= done && ('validate' in step || 'goal_seek' in step) && JSON.stringify(step).includes('"agent"'),
    );
    if (mapAgents || loopAgents) return { calls: null, atMost: false };
    const calls = spec.steps.reduce((sum, step, index) => {
      if (index < done) return sum;
      if ('agent' in step) return sum + 1;
      if (!('parallel' in step)) return sum;
      const ids = tree[index]?.members ?? [];
      return (
        sum +
        step.parallel.filter(
          (member, at) => 'agent' in member && !answered.has(`step[${ids[at] ?? ''}]/${member.agent}`),
        ).length
      );
    }, 0);
    return { calls, atMost: false };
  },
  // A follow-up on a workflow is discussed by the agents that spoke in it.
  followUp(_config, task, parent) {
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
  },
});
