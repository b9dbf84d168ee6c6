// One session as `conclave sessions list --json` prints it (docs/architecture.md#the-cli), shared by the command
// and its quick path (quick-list.ts), which must print exactly the same.
import type { SessionSummary } from '@resume/core/spec';

/** `unreadable` when the store may not read the session's files, `damaged` when it found them damaged, else its status. */
export function listedStatus(summary: SessionSummary): SessionSummary['status'] | 'damaged' | 'unreadable' {
  if (summary.unreadable) return 'unreadable';
  return summary.damage ? 'damaged' : summary.status;
}

export function listItem(summary: SessionSummary, index: number) {
  return {
    index,
    id: summary.id,
    title: summary.title,
    mode: summary.mode,
    status: listedStatus(summary),
    damage: summary.damage ?? null,
    unreadable: summary.unreadable ?? null,
    createdAt: summary.createdAt,
    updatedAt: summary.updatedAt,
    parentId: summary.parentId,
    branchPoint: summary.branchPoint,
    workspaceDir: summary.workspaceDir,
    progress: summary.progress,
    messageCount: summary.messageCount,
    inputTokens: summary.inputTokens,
    outputTokens: summary.outputTokens,
    costUsd: summary.costUsd,
    task: summary.task,
    archived: summary.archived,
    name: summary.name ?? null,
    tags: summary.tags ?? [],
    pinned: summary.pinned ?? false,
    archivedAt: summary.archivedAt ?? null,
    wakeAt: summary.wakeAt ?? null,
    job: summary.job ?? null,
  };
}
