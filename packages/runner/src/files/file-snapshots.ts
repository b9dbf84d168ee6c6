// File snapshots: what a session saw or wrote (content hash + content as a blob), and the
// comparison of those snapshots with the workspace on resume. Always by content hash,
// never by modification time, so a touched-but-identical file is not a conflict.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FileSnapshotRecord, SessionState } from '@resume/core';
import type { EventInput, JournalEvent, SessionStore } from '@resume/core/spec';
import { WorkspaceAccessError } from './workspace-access-error.js';
import { resolveWorkspacePath } from './workspace-path.js';

/** sha256 (hex) of the content, the same address the blob stores use. */
export function hashContent(content: Uint8Array | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Reads a workspace file, or null when nothing is there. Refuses paths that leave the workspace. */
export async function readWorkspaceFile(
  workspaceDir: string,
  filePath: string,
): Promise<{ relative: string; content: Uint8Array | null }> {
  const resolved = await resolveWorkspacePath(workspaceDir, filePath);
  if (!resolved.exists) return { relative: resolved.relative, content: null };
  try {
    return { relative: resolved.relative, content: await readFile(resolved.absolute) };
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
    if (code === 'ENOENT') return { relative: resolved.relative, content: null };
    if (code === 'EISDIR') {
      throw new WorkspaceAccessError('not-a-file', filePath, `${filePath} is a directory, not a file.`, {
        cause: error,
      });
    }
    throw error;
  }
}

/** What `snapshotFile` needs of a session: a way to journal an event in its current batch. */
export interface SnapshotRecorder {
  record(event: EventInput): JournalEvent;
}

export interface SnapshotFileInput {
  session: SnapshotRecorder;
  store: Pick<SessionStore, 'putBlob'>;
  workspaceDir: string;
  /** Workspace-relative path (absolute paths and escapes are refused). */
  path: string;
  access: 'read' | 'write';
}

export interface FileSnapshot {
  /** Workspace-relative, forward slashes. */
  path: string;
  /** Null when the file does not exist. */
  hash: string | null;
  size: number;
  blob: string | null;
  access: 'read' | 'write';
}

/**
 * Records the file's current content: the bytes go to the blob store, a
 * `file-snapshot-taken` event joins the session's current batch (durable at the next
 * checkpoint or step). A missing file is recorded as absent (hash null), so a file the
 * session saw missing and that exists at resume shows as `created-since`.
 */
export async function snapshotFile(input: SnapshotFileInput): Promise<FileSnapshot> {
  const { relative, content } = await readWorkspaceFile(input.workspaceDir, input.path);
  let snapshot: FileSnapshot;
  if (content === null) {
    snapshot = { path: relative, hash: null, size: 0, blob: null, access: input.access };
  } else {
    const blob = await input.store.putBlob(content);
    snapshot = { path: relative, hash: hashContent(content), size: content.byteLength, blob, access: input.access };
  }
  input.session.record({ type: 'file-snapshot-taken', ...snapshot });
  return snapshot;
}

export type FileChangeStatus = 'unchanged' | 'modified' | 'deleted' | 'created-since';

export interface FileChange {
  path: string;
  status: FileChangeStatus;
  /** The snapshot as journaled (latest per path). */
  snapshot: FileSnapshotRecord;
  /** Hash of what is in the workspace now, null when absent. */
  currentHash: string | null;
  currentSize: number | null;
}

export interface CompareWorkspaceFilesInput {
  state: Pick<SessionState, 'files'>;
  workspaceDir: string;
}

function classify(snapshotHash: string | null, currentHash: string | null): FileChangeStatus {
  if (snapshotHash === currentHash) return 'unchanged';
  if (snapshotHash === null) return 'created-since';
  if (currentHash === null) return 'deleted';
  return 'modified';
}

/**
 * Compares every snapshotted file with the workspace by content hash. A path that now
 * resolves outside the workspace (a symlink planted since) is reported as `modified` with
 * no current hash readable: it is never followed.
 */
export async function compareWorkspaceFiles(input: CompareWorkspaceFilesInput): Promise<FileChange[]> {
  const paths = Object.keys(input.state.files).sort();
  const changes: FileChange[] = [];
  for (const filePath of paths) {
    const snapshot = input.state.files[filePath] as FileSnapshotRecord;
    let currentHash: string | null;
    let currentSize: number | null;
    try {
      const { content } = await readWorkspaceFile(input.workspaceDir, filePath);
      currentHash = content === null ? null : hashContent(content);
      currentSize = content === null ? null : content.byteLength;
    } catch (error) {
      if (!WorkspaceAccessError.isInstance(error) || error.reason === 'workspace-missing') throw error;
      // Not a readable regular file inside the workspace any more: certainly not the snapshot.
      changes.push({ path: filePath, status: 'modified', snapshot, currentHash: null, currentSize: null });
      continue;
    }
    changes.push({ path: filePath, status: classify(snapshot.hash, currentHash), snapshot, currentHash, currentSize });
  }
  return changes;
}

/** The changes a user has to decide about (everything but `unchanged`). */
/**
 * A change in words for messages: `modified`, `deleted`, or for a file the session read as
 * missing and that exists now, a flag saying so (a restore would delete it).
 */
export function describeFileChange(status: FileChangeStatus): string {
  return status === 'created-since' ? 'created since the session read it as missing' : status;
}

export function fileConflicts(changes: readonly FileChange[]): FileChange[] {
  return changes.filter((change) => change.status !== 'unchanged');
}
