// The choices a run may need from the user (resume prompt, file conflicts, uncertain
// steps, models the provider no longer offers). Flags decide first; with a terminal the
// TUI asks (imported only then); without one nothing ever blocks: every missing decision
// is named in one error before anything is written (exit 64; 69 for a missing model).
import type { UncertainDecision } from '@resume/core';
import { ProviderError, type UncertainStepInfo, UsageError } from '@resume/core/spec';
import {
  describeFileChange,
  diffFileChange,
  type FileChange,
  type ModelDecision,
  type ModelUnavailableFinding,
  type ResumePlan,
  type RunDecisions,
} from '@resume/runner';
import type { CliContext } from '../context/cli-context.js';
import { rankAlternatives } from './models.js';

export interface DecisionFlags {
  yes: boolean;
  onConflict: 'keep' | 'restore' | 'cancel' | null;
  onUncertain: UncertainDecision | null;
  /** `--models` was given: the recorded models are replaced, an unavailable one needs no decision. */
  modelsGiven?: boolean;
  /** `--force`: an unavailable model is called under its recorded name anyway. */
  force?: boolean;
}

export interface ModelCatalog {
  availableModels: () => Promise<readonly string[] | null>;
  provider: string;
  /** Routes calls to an unavailable model to the one chosen instead. */
  replace: (from: string, to: string) => void;
}

/** The flags a resume without a terminal still needs, each with why (empty: none). */
export function missingDecisionFlags(plan: ResumePlan, flags: DecisionFlags): string[] {
  const missing: string[] = [];
  if (!flags.yes) missing.push(`--yes             accept the resume plan (${plan.question})`);
  const changed = (plan.changes.files ?? []).filter((change) => change.status !== 'unchanged');
  if (changed.length > 0 && !flags.onConflict)
    missing.push(
      `--on-conflict keep|restore|cancel   files changed since the session touched them: ${changed.map((change) => `${change.path} (${describeFileChange(change.status)})`).join(', ')}`,
    );
  const undecided = plan.uncertain.filter((step) => step.action === 'decide');
  if (undecided.length > 0 && !flags.onUncertain)
    missing.push(
      `--on-uncertain rerun|skip|abort    started and never finished, with side effects: ${undecided.map((step) => step.label).join(', ')}`,
    );
  return missing;
}

function unavailableModelsError(
  findings: readonly ModelUnavailableFinding[],
  available: readonly string[],
  provider: string,
  alsoMissing: readonly string[],
): ProviderError {
  const first = findings[0] as ModelUnavailableFinding;
  const described = findings.map(
    (finding) => `'${finding.model}'${finding.agents.length > 0 ? ` (used by ${finding.agents.join(', ')})` : ''}`,
  );
  const alternatives = rankAlternatives(first.model, available).slice(0, 5);
  return new ProviderError(
    {
      reason: 'model-not-found',
      provider,
      model: first.model,
      message:
        described.length === 1
          ? `Model ${described[0]} is not offered by the ${provider} provider now; nothing was run.`
          : `Models not offered by the ${provider} provider now: ${described.join(', ')}; nothing was run.`,
    },
    {
      hint: [
        `Choose models with --models a,b${alternatives.length > 0 ? ` (the provider lists: ${alternatives.join(', ')})` : ''}.`,
        ...(alsoMissing.length > 0
          ? ['Without a terminal the resume also needs:', ...alsoMissing.map((line) => `  ${line}`)]
          : []),
      ].join('\n'),
    },
  );
}

export function buildDecisions(context: CliContext, flags: DecisionFlags, catalog?: ModelCatalog): RunDecisions {
  const interactive = context.environment.interactive && !context.options.json;
  const modelsOffered = async () => (catalog ? ((await catalog.availableModels()) ?? []) : []);
  const decisions: RunDecisions = {
    async review(plan: ResumePlan) {
      if (interactive) return;
      const missing = missingDecisionFlags(plan, flags);
      const models =
        flags.modelsGiven || flags.force
          ? []
          : (plan.changes.compatibility?.findings ?? []).filter(
              (finding): finding is ModelUnavailableFinding => finding.kind === 'model-unavailable',
            );
      if (models.length > 0)
        throw unavailableModelsError(models, await modelsOffered(), catalog?.provider ?? 'model', missing);
      if (missing.length > 0)
        throw new UsageError(
          `Not resuming session ${plan.sessionId}: there is no terminal to ask, and ${missing.length === 1 ? 'a decision is' : `${missing.length} decisions are`} missing. Nothing was changed.`,
          { hint: `Add:\n${missing.map((line) => `  ${line}`).join('\n')}\n(or --dry-run to see the plan first)` },
        );
    },
    async modelUnavailable(finding: ModelUnavailableFinding): Promise<ModelDecision> {
      if (flags.modelsGiven || flags.force) return { choice: 'use-same-model' };
      const available = await modelsOffered();
      if (!interactive) throw unavailableModelsError([finding], available, catalog?.provider ?? 'model', []);
      const tui = await import('@resume/tui');
      const answer = await tui.askModelUnavailable(
        {
          model: finding.model,
          agents: finding.agents,
          alternatives: rankAlternatives(finding.model, available),
          reason: `The ${catalog?.provider ?? ''} provider lists ${available.length} model${available.length === 1 ? '' : 's'}; '${finding.model}' is not among them.`,
        },
        screenIo(context),
      );
      if (answer.choice === 'cancel') return { choice: 'cancel' };
      if (answer.choice === 'same') return { choice: 'use-same-model' };
      catalog?.replace(finding.model, answer.model);
      context.terminal.note(`→ '${finding.model}' replaced by '${answer.model}' for this run.`);
      return { choice: 'use-other-model', model: answer.model };
    },
    async confirmResume(plan: ResumePlan) {
      if (flags.yes) return true;
      if (!interactive)
        throw new UsageError(
          `Not resuming session ${plan.sessionId} without confirmation: there is no terminal to ask.`,
          {
            hint: `${plan.question} Pass --yes to accept (or --dry-run to see the plan first).`,
          },
        );
      const tui = await import('@resume/tui');
      return tui.confirmResume(plan, screenIo(context));
    },
    async fileConflicts(changes: FileChange[]) {
      if (flags.onConflict === 'cancel') return null;
      if (flags.onConflict) {
        const choice = flags.onConflict;
        return Object.fromEntries(changes.map((change) => [change.path, choice]));
      }
      if (!interactive)
        throw new UsageError(
          `Files changed since the session last touched them: ${changes.map((change) => `${change.path} (${describeFileChange(change.status)})`).join(', ')}.`,
          { hint: 'Choose with --on-conflict keep|restore|cancel (keep leaves your files as they are).' },
        );
      const tui = await import('@resume/tui');
      const engine = await context.engine();
      const answer = await tui.resolveConflictsInteractively(
        changes.map((change) => ({ path: change.path, status: change.status })),
        async (filePath: string) => {
          const change = changes.find((each) => each.path === filePath);
          if (!change) return '';
          return diffFileChange({ change, store: engine.store, workspaceDir: context.environment.cwd });
        },
        screenIo(context),
      );
      return answer === 'cancel' ? null : answer.choices;
    },
  };
  if (flags.onUncertain) {
    const decision = flags.onUncertain;
    decisions.uncertainStep = () => decision;
    decisions.uncertainChoice = decision;
  } else if (interactive) {
    decisions.uncertainStep = async (step: UncertainStepInfo) => {
      const tui = await import('@resume/tui');
      return tui.askUncertainStep(step, screenIo(context));
    };
  }
  // Without a flag or a terminal no callback is given: the step throws UncertainStepError,
  // whose message names the step and whose hint names --on-uncertain (exit 64).
  return decisions;
}

export function screenIo(context: CliContext) {
  return {
    env: context.environment.env,
    ...(context.options.color === false ? { noColor: true } : {}),
    now: context.environment.now,
  };
}
