// The checks between a resume plan and running it: the compatibility verdict, models that
// disappeared, files changed since the session touched them, and the caller's confirmation.

import type { Session } from '@resume/core';
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

export interface PreparedResume {
  /** The model replacements chosen (old id -> new id). */
  replacements: Map<string, string>;
  /** Files a restore wrote over, whose replaced content is kept as a blob (to be journaled). */
  replacedFiles: FileResolution[];
}

/**
 * The checks before a resume: compatibility, models, files, the caller's confirmation.
 * Returns the model replacements chosen and the files restored, or null when cancelled.
 */
export async function prepareResume(input: PrepareResumeInput): Promise<PreparedResume | null> {
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
  const replacedFiles: FileResolution[] = [];
  if (conflicts.length > 0) {
    const resolutions: FileResolution[] = await resolveFileConflicts({
      changes: conflicts,
      choices,
      store: store,
      workspaceDir: workspaceDir,
    });
    for (const resolution of resolutions) {
      if (resolution.replacedBlob !== null) replacedFiles.push(resolution);
      else if (resolution.action !== 'unchanged')
        emit({ type: 'notice', text: `${resolution.path}: ${resolution.action}` });
    }
  }
  return { replacements, replacedFiles };
}

/**
 * Journals the content each restore replaced (a `file-version-saved` event referencing its
 * blob, committed at once), so the user's version stays with the session, is exported with
 * it, and `conclave files` can give it back; then says so and how.
 */
export async function keepReplacedFiles(
  session: Session,
  files: readonly FileResolution[],
  emit: (event: RunEvent) => void,
): Promise<void> {
  if (files.length === 0) return;
  for (const file of files) {
    if (file.replacedBlob === null || file.replacedHash == null || file.replacedSize == null) continue;
    session.record({
      type: 'file-version-saved',
      path: file.path,
      hash: file.replacedHash,
      size: file.replacedSize,
      blob: file.replacedBlob,
      reason: 'replaced-by-restore',
    });
  }
  await session.checkpoint();
  for (const file of files) {
    const done = file.action === 'removed' ? 'removed (absent from the snapshot)' : 'restored from the snapshot';
    emit({
      type: 'notice',
      text: `${file.path}: ${done}; your version is kept with the session: conclave files ${session.id} --restore ${file.path} --to <file>`,
    });
  }
}
