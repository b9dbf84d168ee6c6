// The checks between a resume plan and running it: the compatibility verdict, models that
// disappeared, files changed since the session touched them, and the caller's confirmation.

import { IncompatibleSessionError, type SessionStore } from '@resume/core/spec';
import { type FileResolution, resolveFileConflicts } from '../files/file-conflicts.js';
import { fileConflicts } from '../files/file-snapshots.js';
import type { CompatibilityFinding } from '../resume/compatibility.js';
import type { ResumePlan } from '../resume/resume-plan.js';
import type { RunEvent } from './run-event.js';
import type { RunDecisions } from './runner-types.js';

/**
 * Asks about every model the provider no longer lists (before the first call of a resume
 * or a continue). Returns the replacements chosen (old id -> new id), or null when cancelled.
 */
export async function decideUnavailableModels(
  findings: readonly CompatibilityFinding[],
  decisions: RunDecisions | undefined,
): Promise<Map<string, string> | null> {
  const replacements = new Map<string, string>();
  for (const finding of findings) {
    if (finding.kind !== 'model-unavailable' || !decisions?.modelUnavailable) continue;
    const decision = await decisions.modelUnavailable(finding);
    if (decision.choice === 'cancel') return null;
    if (decision.choice === 'use-other-model') replacements.set(finding.model, decision.model);
  }
  return replacements;
}

export interface PrepareResumeInput {
  plan: ResumePlan;
  /** Go on although the compatibility check blocks. */
  force: boolean;
  decisions: RunDecisions | undefined;
  emit: (event: RunEvent) => void;
  store: Pick<SessionStore, 'getBlob' | 'putBlob'>;
  workspaceDir: string;
}

/**
 * The checks before a resume: compatibility, models, files, the caller's confirmation.
 * Returns the model replacements chosen (old id -> new id), or null when cancelled.
 */
export async function prepareResume(input: PrepareResumeInput): Promise<Map<string, string> | null> {
  const { plan: resumePlan, force, decisions, emit, store, workspaceDir } = input;
  const replacements = new Map<string, string>();
  const compatibility = resumePlan.changes.compatibility;
  if (compatibility?.level === 'block' && !force) {
    throw new IncompatibleSessionError(
      resumePlan.sessionId,
      compatibility.findings.map((finding) => finding.message),
    );
  }
  await decisions?.review?.(resumePlan);
  if (compatibility?.level === 'warn' || (compatibility?.level === 'block' && force)) {
    for (const finding of compatibility.findings) {
      emit({ type: 'notice', text: finding.message });
    }
  }
  if (resumePlan.changes.git?.changed) emit({ type: 'notice', text: resumePlan.changes.git.message });
  const workspace = resumePlan.changes.workspace;
  if (workspace && (!workspace.same || workspace.current !== workspace.runsIn)) {
    emit({
      type: 'notice',
      text: workspace.same
        ? `Resuming in the session's workspace ${workspaceDir} (you are in ${workspace.current}).`
        : `The session ran in ${workspace.recorded}; resuming in ${workspaceDir} (--workspace).`,
    });
  }
  const models = await decideUnavailableModels(compatibility?.findings ?? [], decisions);
  if (models === null) return null;
  for (const [from, to] of models) replacements.set(from, to);
  const conflicts = fileConflicts(resumePlan.changes.files ?? []);
  const choices = conflicts.length > 0 && decisions?.fileConflicts ? await decisions.fileConflicts(conflicts) : {};
  if (choices === null) return null;
  // Files are restored only once the resume is confirmed: declining must leave the workspace as it was.
  if (decisions?.confirmResume && !(await decisions.confirmResume(resumePlan))) return null;
  if (conflicts.length > 0) {
    const resolutions: FileResolution[] = await resolveFileConflicts({
      changes: conflicts,
      choices,
      store: store,
      workspaceDir: workspaceDir,
    });
    for (const resolution of resolutions) {
      if (resolution.action !== 'unchanged') emit({ type: 'notice', text: `${resolution.path}: ${resolution.action}` });
    }
  }
  return replacements;
}
