// `runner.runWorkflow`: a run from a file, a workflow spec (chain) or a `.prompt.md` file
// (an orchestrated lead with the prompt's tools). The file's text is journaled at the start.
import path from 'node:path';
import { defaultLead } from '../modes/agent-spec.js';
import { parsePromptFile } from '../workflow/prompt-file.js';
import { CURRENT_STEP_KEY_SCHEME } from '../workflow/step-ids.js';
import { renderTemplate } from '../workflow/template.js';
import { checkWorkflow, hashText, parseWorkflowSpec, resolveVariables } from '../workflow/workflow-spec.js';
import { drive } from './drive.js';
import type { RunConfig } from './run-config.js';
import { DEFAULT_MAX_ITERATIONS } from './run-config-building.js';
import { checkRequestedTools } from './run-tools.js';
import { type RunnerScope, readInput } from './runner-scope.js';
import type { RunResult, WorkflowInput } from './runner-types.js';
import { createRunSession, taskMessage } from './session-setup.js';

export async function runWorkflow(scope: RunnerScope, filePath: string, input: WorkflowInput = {}): Promise<RunResult> {
  const text = await readInput(scope, filePath);
  const overrides = input.variables ?? {};
  const specHash = hashText(text);
  if (filePath.endsWith('.prompt.md')) {
    const prompt = parsePromptFile(text, filePath);
    const variables = { ...prompt.frontMatter.variables, ...overrides };
    const task = renderTemplate(prompt.body, { variables }, { file: filePath, key: 'body' });
    const config: RunConfig = {
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
      maxIterations: prompt.frontMatter.max_iterations ?? DEFAULT_MAX_ITERATIONS,
    };
    checkRequestedTools(scope, config.tools, filePath);
    const session = await createRunSession(scope, {
      title: input.title ?? prompt.frontMatter.name ?? path.basename(filePath),
      config,
      record: input.record,
      specHash,
      initialEvents: [
        { type: 'spec-recorded', kind: 'prompt', path: filePath, hash: specHash, blob: null, content: text },
        { type: 'variables-set', variables },
        taskMessage(task),
      ],
    });
    return drive(scope, session, config, false);
  }
  const spec = parseWorkflowSpec(text, filePath);
  const variables = resolveVariables(spec, filePath, overrides);
  checkWorkflow(spec, filePath, Object.keys(variables));
  const config: RunConfig = { mode: 'chain', workflowPath: filePath, variables, stepKeys: CURRENT_STEP_KEY_SCHEME };
  const session = await createRunSession(scope, {
    title: input.title ?? spec.name,
    config,
    record: input.record,
    specHash,
    initialEvents: [
      { type: 'spec-recorded', kind: 'workflow', path: filePath, hash: specHash, blob: null, content: text },
      { type: 'variables-set', variables },
      taskMessage(spec.description ? `${spec.name}: ${spec.description}` : `Workflow ${spec.name}`),
    ],
  });
  return drive(scope, session, config, false);
}
