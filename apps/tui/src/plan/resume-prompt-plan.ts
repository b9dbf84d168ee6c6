// The parts of core's ResumePlan (resume/resume-plan.ts) the screens show, typed
// structurally so a plan from core fits as it is, and turned into short lines here
// (pure, tested without rendering).
import type { ResumePlanView } from '../backend/tui-backend.js';
import { formatCost, formatTokens } from '../theme/format.js';

interface PlanStep {
  label: string;
}

export interface ResumePromptPlan {
  sessionId: string;
  title: string;
  action: 'resume' | 'continue';
  /** "Resume from chunk 8 of 15?" */
  question: string;
  next: string | null;
  checkpoint: { seq: number; label: string | null } | null;
  done: readonly PlanStep[];
  skipped: readonly PlanStep[];
  rerun: readonly PlanStep[];
  uncertain: readonly (PlanStep & {
    attempt: number;
    action: 'rerun' | 'decide';
    /** Its command, which the interrupted run left running. */
    running?: { pid: number };
  })[];
  retrying: readonly (PlanStep & { nextAttempt: number; maxAttempts: number | null; failures: readonly unknown[] })[];
  /** Side-effecting steps whose earlier run was lost when the session was repaired. */
  lostInRepair?: readonly PlanStep[];
  /** Questions answered since the session stopped: the resume goes on with these answers. */
  answered?: readonly { prompt: string; answer: string; answeredBy: string | null }[];
  cost: { inputTokens: number; outputTokens: number; costUsd: number | null };
  lineageCost?: { costUsd: number | null } | null;
  changes: {
    compatibility: { level: 'ok' | 'warn' | 'block'; findings: readonly { message: string }[] } | null;
    files: readonly { path: string; status: string }[] | null;
    git: { changed: boolean; message: string } | null;
    workspace?: { same: boolean; missing?: boolean; current?: string; runsIn?: string; message: string } | null;
    settings?: readonly { message: string }[];
  };
  spec?: { path: string; changed: boolean; runs: 'recorded' | 'edited' } | null;
}

/** Lists up to `limit` labels: "a, b, c and 4 more". */
export function listLabels(steps: readonly PlanStep[], limit = 3): string {
  const shown = steps.slice(0, limit).map((step) => step.label);
  const rest = steps.length - shown.length;
  return rest > 0 ? `${shown.join(', ')} and ${rest} more` : shown.join(', ');
}

export interface PlanLine {
  kind: 'done' | 'uncertain' | 'retrying' | 'rerun' | 'next' | 'cost' | 'warning';
  text: string;
}

/** The lines the resume prompt shows above its question. */
export function resumePlanLines(plan: ResumePromptPlan): PlanLine[] {
  const lines: PlanLine[] = [];
  const reused = plan.done.length + plan.skipped.length;
  if (reused > 0) {
    lines.push({
      kind: 'done',
      text: `Skipped (already done, not repeated): ${reused} step${reused === 1 ? '' : 's'}: ${listLabels([...plan.done, ...plan.skipped])}`,
    });
  }
  for (const step of plan.uncertain) {
    lines.push({
      kind: 'uncertain',
      text:
        step.action === 'rerun'
          ? `Uncertain: ${step.label} (attempt ${step.attempt}) never finished; it is safe to repeat and runs again`
          : `Uncertain: ${step.label} (attempt ${step.attempt}) never finished and has side effects; you will be asked`,
    });
    if (step.running)
      lines.push({
        kind: 'uncertain',
        text: `  its command is still running (pid ${step.running.pid}): the resume waits for it to end before asking`,
      });
  }
  for (const step of plan.retrying) {
    const limit = step.maxAttempts === null ? '' : ` of ${step.maxAttempts}`;
    lines.push({
      kind: 'retrying',
      text: `Retry: ${step.label} continues at attempt ${step.nextAttempt}${limit} (${step.failures.length} failed)`,
    });
  }
  if (plan.rerun.length > 0) {
    lines.push({ kind: 'rerun', text: `Re-run (after the chosen checkpoint): ${listLabels(plan.rerun)}` });
  }
  if (plan.lostInRepair && plan.lostInRepair.length > 0) {
    lines.push({
      kind: 'rerun',
      text: `Will run again (their earlier run was lost with the damaged part): ${listLabels(plan.lostInRepair)}`,
    });
  }
  for (const answered of plan.answered ?? [])
    lines.push({
      kind: 'next',
      text: `Answered: "${answered.prompt}" → ${answered.answer}${answered.answeredBy ? ` (by ${answered.answeredBy})` : ''}`,
    });
  if (plan.next !== null) lines.push({ kind: 'next', text: `Next: ${plan.next}` });
  const lineage =
    plan.lineageCost && plan.lineageCost.costUsd !== plan.cost.costUsd
      ? `, lineage ${formatCost(plan.lineageCost.costUsd)}`
      : '';
  lines.push({
    kind: 'cost',
    text: `Cost so far: ${formatCost(plan.cost.costUsd)} (${formatTokens(plan.cost.inputTokens, plan.cost.outputTokens)}${lineage})`,
  });
  lines.push(...planWarnings(plan).map((text) => ({ kind: 'warning' as const, text })));
  return lines;
}

export function planWarnings(plan: ResumePromptPlan): string[] {
  const warnings: string[] = [];
  const changed = (plan.changes.files ?? []).filter((file) => file.status !== 'unchanged');
  if (changed.length > 0) {
    warnings.push(
      `${changed.length} file${changed.length === 1 ? '' : 's'} changed since the session touched ${changed.length === 1 ? 'it' : 'them'}: ${changed
        .slice(0, 3)
        .map((file) => `${file.path} (${file.status})`)
        .join(', ')}${changed.length > 3 ? ', …' : ''}`,
    );
  }
  for (const finding of plan.changes.compatibility?.findings ?? []) warnings.push(finding.message);
  if (plan.changes.git?.changed) warnings.push(plan.changes.git.message);
  for (const setting of plan.changes.settings ?? []) warnings.push(setting.message);
  const workspace = plan.changes.workspace;
  if (workspace && (!workspace.same || workspace.missing || workspace.current !== workspace.runsIn))
    warnings.push(workspace.message);
  if (plan.spec?.changed)
    warnings.push(
      plan.spec.runs === 'edited'
        ? `${plan.spec.path} changed; the edited version runs`
        : `${plan.spec.path} changed; the recorded version runs (--use-edited-spec for the edited one)`,
    );
  return warnings;
}

/** The plan as the picker's details pane shows it. */
export function resumePlanView(plan: ResumePromptPlan): ResumePlanView {
  return {
    position: plan.next,
    skipped: [...plan.done, ...plan.skipped].map((step) => step.label),
    uncertain: plan.uncertain.map((step) => step.label),
    next: plan.next === null ? [] : [plan.next],
    warnings: planWarnings(plan),
  };
}
