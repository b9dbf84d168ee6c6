// The resume plan as readable text: what `--dry-run` prints and what the TUI's resume
// prompt shows under its question. Plain text (no colour codes) so it reads the same in
// a terminal, a log and a test.

import type { UsageTotals } from '@resume/core';
import { describeElapsed } from '../config/duration.js';
import { describeAttempt, type PlannedStep, type ResumePlan } from './resume-plan.js';
import { describeSpecRule } from './spec-change.js';

export interface FormatResumePlanOptions {
  /** List at most this many completed steps by name (default 10); the rest are counted. */
  maxListedSteps?: number;
}

function formatCost(usage: UsageTotals): string {
  const tokens = `${usage.inputTokens} in / ${usage.outputTokens} out tokens, ${usage.calls} call${usage.calls === 1 ? '' : 's'}`;
  const cost = usage.costUsd === null ? 'cost unknown' : `$${usage.costUsd.toFixed(4)}`;
  return `${cost} (${tokens})`;
}

function describeRemaining(remaining: NonNullable<ResumePlan['remaining']>): string {
  if (remaining.calls === null) return 'an unknown number of model calls';
  const calls = `${remaining.atMost ? 'at most ' : ''}${remaining.calls} model call${remaining.calls === 1 ? '' : 's'}`;
  if (remaining.calls === 0) return 'no model calls';
  if (remaining.costUsd === null || remaining.averageUsd === null)
    return `${calls} (cost not estimated: no priced call yet)`;
  return `${calls}, about $${remaining.costUsd.toFixed(4)} at $${remaining.averageUsd.toFixed(4)} per call so far`;
}

/** `a, b, c … and 7 more` */
function listIds(ids: readonly string[], max: number): string {
  const shown = ids.slice(0, max).join(', ');
  return ids.length > max ? `${shown} … and ${ids.length - max} more` : shown;
}

function formatMaps(plan: ResumePlan, max: number): string[] {
  const lines: string[] = [];
  for (const map of plan.maps) {
    lines.push(`Map step ${map.stepId}: ${map.total} item${map.total === 1 ? '' : 's'}`);
    const groups: Array<[string, string[]]> = [
      ['done, will be skipped', map.done],
      [`failed, left in the dead-letter list (conclave run retry ${plan.sessionId} --items failed)`, map.failed],
      ['unfinished, will run again', map.unfinished],
      ['not started, will run', map.pending],
    ];
    for (const [what, ids] of groups) {
      if (ids.length > 0) lines.push(`    ${what}: ${ids.length} (${listIds(ids, max)})`);
    }
  }
  return lines;
}

function listSteps(steps: readonly PlannedStep[], max: number): string[] {
  const lines = steps.slice(0, max).map((step) => `    - ${step.label}`);
  if (steps.length > max) lines.push(`    … and ${steps.length - max} more`);
  return lines;
}

export function formatResumePlan(plan: ResumePlan, options: FormatResumePlanOptions = {}): string {
  const max = options.maxListedSteps ?? 10;
  const lines: string[] = [];
  lines.push(`Session ${plan.sessionId} "${plan.title}" (${plan.mode}, ${plan.status})`);
  if (plan.checkpoint !== null) {
    const label = plan.checkpoint.label === null ? '' : ` "${plan.checkpoint.label}"`;
    lines.push(`From checkpoint ${plan.checkpoint.seq}${label}`);
  }
  if (plan.recoveries > 0) lines.push(`Resumed ${plan.recoveries} time${plan.recoveries === 1 ? '' : 's'} before`);

  lines.push('');
  lines.push(
    `Done, will be skipped: ${plan.done.length} step${plan.done.length === 1 ? '' : 's'}, ${plan.messageCount} message${plan.messageCount === 1 ? '' : 's'}`,
  );
  lines.push(...listSteps(plan.done, max));
  if (plan.skipped.length > 0) {
    lines.push(`Skipped earlier by choice: ${plan.skipped.length}`);
    lines.push(...listSteps(plan.skipped, max));
  }
  if (plan.passedOver.length > 0) {
    lines.push(`Unfinished, in a chunk that is skipped (will not run): ${plan.passedOver.length}`);
    lines.push(...listSteps(plan.passedOver, max));
  }
  if (plan.rerun.length > 0) {
    lines.push(`After the checkpoint, will run again: ${plan.rerun.length}`);
    lines.push(...listSteps(plan.rerun, max));
  }
  if (plan.lostInRepair.length > 0) {
    lines.push(`Will run again (their earlier run was lost with the damaged part): ${plan.lostInRepair.length}`);
    lines.push(...listSteps(plan.lostInRepair, max));
  }
  if (plan.uncertain.length > 0) {
    lines.push('Uncertain (started, never finished):');
    for (const step of plan.uncertain) {
      const what =
        step.action === 'rerun'
          ? 'idempotent, will run again'
          : 'has side effects: choose rerun, skip or abort (--on-uncertain)';
      lines.push(`    - ${step.label}, attempt ${step.attempt}: ${what}`);
      if (step.running)
        lines.push(
          `      its command is still running (pid ${step.running.pid}, for ${describeElapsed(step.running.forMs)}): the resume waits for it to end, or stops it first with rerun`,
        );
    }
  }
  if (plan.retrying.length > 0) {
    lines.push('Retrying:');
    for (const step of plan.retrying) {
      const state = step.willRetry
        ? describeAttempt(step)
        : `${describeAttempt(step)} (it had given up; a resume tries again)`;
      lines.push(`    - ${step.label}: ${state}`);
      step.failures.forEach((failure, index) => {
        lines.push(`        ${index + 1}. ${failure.name}: ${failure.message}`);
      });
    }
  }
  for (const answered of plan.answered)
    lines.push(
      `Answered since it stopped: "${answered.prompt}" → ${answered.answer}${answered.answeredBy ? ` (by ${answered.answeredBy})` : ''}`,
    );
  lines.push(...formatMaps(plan, max));
  if (plan.next !== null) lines.push(`Next: ${plan.next}`);

  const changeLines: string[] = [];
  const compatibility = plan.changes.compatibility;
  if (compatibility !== null) {
    for (const finding of compatibility.findings) changeLines.push(`    ${finding.level}: ${finding.message}`);
  }
  for (const file of plan.changes.files ?? []) {
    if (file.status !== 'unchanged') changeLines.push(`    file ${file.status}: ${file.path}`);
  }
  for (const setting of plan.changes.settings ?? []) changeLines.push(`    setting: ${setting.message}`);
  if (plan.changes.git?.changed) changeLines.push(`    ${plan.changes.git.message}`);
  const workspace = plan.changes.workspace;
  if (workspace && (!workspace.same || workspace.missing || workspace.current !== workspace.runsIn))
    changeLines.push(`    ${workspace.message}`);
  if (plan.spec && (plan.spec.changed || plan.spec.missing)) {
    changeLines.push(`    ${describeSpecRule(plan.spec)}`);
    if (plan.spec.diff) changeLines.push(...plan.spec.diff.split('\n').map((line) => `      ${line}`));
  }
  lines.push('');
  if (changeLines.length === 0) {
    lines.push('Changed since: nothing');
  } else {
    lines.push('Changed since:');
    lines.push(...changeLines);
  }
  if (compatibility !== null && compatibility.level === 'block') {
    lines.push('Blocked. Ways out:');
    for (const suggestion of compatibility.suggestions) lines.push(`    - ${suggestion.message}`);
  } else if (compatibility !== null && compatibility.suggestions.length > 0) {
    lines.push('Options:');
    for (const suggestion of compatibility.suggestions) lines.push(`    - ${suggestion.message}`);
  }

  lines.push('');
  lines.push(`Cost so far: ${formatCost(plan.cost)}`);
  if (plan.lineageCost !== null && plan.lineageCost.calls !== plan.cost.calls)
    lines.push(`Cost over the lineage: ${formatCost(plan.lineageCost)}`);
  if (plan.remaining !== null && plan.action === 'resume')
    lines.push(`Still to run: ${describeRemaining(plan.remaining)}`);
  if (plan.costWarning !== null) lines.push(`Warning: ${plan.costWarning}`);
  lines.push('');
  lines.push(plan.question);
  return lines.join('\n');
}
