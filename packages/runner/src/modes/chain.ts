// Chain mode: a workflow spec's steps in order (agent, shell and map steps; see
// chain-steps.ts and chain-map.ts).

import { stepKeyPrefix, workflowStepIds } from '../workflow/step-ids.js';
import { renderTemplate, type StepResult, type TemplateScope } from '../workflow/template.js';
import { isMapStep, isShellStep, type WorkflowAgentStep } from '../workflow/workflow-spec.js';
import { runMapStep } from './chain-map.js';
import { type ChainOptions, passedLabel, runAgentStep, runShellStep, type StepPlace } from './chain-steps.js';
import { checkpoint, type ModeContext, type ModeResult, reportProgress, setData } from './mode-context.js';
import { writeOutputFiles } from './workspace-output.js';

export type { ChainOptions } from './chain-steps.js';

/** Whether the recorded chain progress is already at (or past) `step` of the same `total` steps. */
function reachedBefore(context: ModeContext, step: number, total: number): boolean {
  const recorded = context.session.state.data.chain;
  if (typeof recorded !== 'object' || recorded === null || Array.isArray(recorded)) return false;
  return recorded.totalSteps === total && typeof recorded.step === 'number' && recorded.step >= step;
}

export async function runChain(context: ModeContext, options: ChainOptions): Promise<ModeResult> {
  const { spec } = options;
  const scope: TemplateScope & { steps: StepResult[] } = {
    variables: options.variables,
    steps: [],
    lastResponse: null,
  };
  const total = spec.steps.length;
  // Steps are found in the journal by their stable id (position only in sessions recorded before ids).
  const ids = workflowStepIds(spec.steps);
  const stepsById = new Map<string, StepResult>();
  scope.stepsById = stepsById;
  for (const [index, step] of spec.steps.entries()) {
    reportProgress(context, 'steps', index, total);
    const id = ids[index] ?? String(index);
    const prefix = stepKeyPrefix(options.stepKeys, index, id);
    if (isMapStep(step)) {
      const result = await runMapStep(context, options, { index, id, prefix, step, scope });
      scope.steps.push(result);
      stepsById.set(id, result);
      if (result.lastResponse !== undefined) scope.lastResponse = result.lastResponse;
      await checkpoint(context, `step ${index + 1} map`);
    } else if (isShellStep(step)) {
      const markedAfter = context.session.state.lastSeq;
      const place: StepPlace = {
        prefix,
        specKey: `steps[${index}]`,
        label: `step ${index + 1}`,
        // Steps are numbered from 1 wherever a number is shown ("step 2 of 3"); steps[1] in templates.
        stepName: step.name ?? step.id ?? String(index + 1),
        round: index + 1,
        completionLabel: (attempt) => passedLabel(index, attempt),
        fixer: (key, agentName, input) => runAgentStep(context, options, key, agentName, input, index + 1),
      };
      const result = await runShellStep(context, options, place, step, scope);
      const stepResult = { response: result.stdoutTail, exitCode: result.exitCode, skipped: result.skipped === true };
      scope.steps.push(stepResult);
      stepsById.set(id, stepResult);
      const label = result.skipped ? `step ${index + 1} shell, skipped` : passedLabel(index, result.attempt);
      // Marked with the step's completion when it ran now; otherwise (replayed, skipped) here.
      await checkpoint(context, label, markedAfter);
    } else {
      const agentStep: WorkflowAgentStep = step;
      const input = renderTemplate(agentStep.input, scope, { file: options.file, key: `steps[${index}].input` });
      const response = await runAgentStep(
        context,
        options,
        `${prefix}/${agentStep.agent}`,
        agentStep.agent,
        input,
        index + 1,
      );
      scope.steps.push({ response });
      stepsById.set(id, { response });
      scope.lastResponse = response;
      await checkpoint(context, `step ${index + 1} ${agentStep.agent}`);
    }
    // Progress only moves forward: a step replayed from the journal on resume writes nothing again.
    if (!reachedBefore(context, index + 1, total)) setData(context, 'chain', { step: index + 1, totalSteps: total });
    context.emit({ type: 'usage', totals: context.session.state.usage });
  }
  reportProgress(context, 'steps', total, total);
  const artifacts = spec.outputs.artifacts.map((artifact, index) => ({
    path: artifact.path,
    content: renderTemplate(artifact.from, scope, { file: options.file, key: `outputs.artifacts[${index}].from` }),
  }));
  if (artifacts.length > 0) {
    await writeOutputFiles(context, 'write-artifacts', artifacts);
    await checkpoint(context, 'artifacts written');
  }
  const conclusion = scope.lastResponse ?? null;
  if (conclusion !== null) setData(context, 'conclusion', conclusion);
  return { conclusion };
}
