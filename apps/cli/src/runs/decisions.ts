// The choices a run may need from the user (resume prompt, file conflicts, uncertain
// steps). Flags decide first; with a terminal the TUI asks (imported only then); without
// one nothing ever blocks: a missing decision is an error naming the flag (exit 64).
import type { UncertainDecision } from '@resume/core';
import { type UncertainStepInfo, UsageError } from '@resume/core/spec';
import { diffFileChange, type FileChange, type ResumePlan, type RunDecisions } from '@resume/runner';
import type { CliContext } from '../context/cli-context.js';

export interface DecisionFlags {
  yes: boolean;
  onConflict: 'keep' | 'restore' | 'cancel' | null;
  onUncertain: UncertainDecision | null;
}

export function buildDecisions(context: CliContext, flags: DecisionFlags): RunDecisions {
  const interactive = context.environment.interactive && !context.options.json;
  const decisions: RunDecisions = {
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
          `Files changed since the session last touched them: ${changes.map((change) => `${change.path} (${change.status})`).join(', ')}.`,
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
