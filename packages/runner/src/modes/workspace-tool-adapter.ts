// Offers the workspace tools (read_file, write_file, list_files, run_command) to the
// orchestrated mode: each call's touched files are snapshotted (hash + content as a blob)
// inside the call's step, so the snapshot commits with the step's outcome.
import type { Session } from '@resume/core';
import type { SessionStore } from '@resume/core/spec';
import { snapshotFile } from '../files/file-snapshots.js';
import { WorkspaceAccessError } from '../files/workspace-access-error.js';
import { resolveWorkspacePath } from '../files/workspace-path.js';
import type { WorkspaceTools } from '../tools/workspace-tools.js';
import type { ModeTool } from './mode-context.js';

export function adaptWorkspaceTools(
  tools: WorkspaceTools,
  context: { session: Session; store: Pick<SessionStore, 'putBlob'> },
): ModeTool[] {
  return tools.definitions.map((definition) => ({
    definition,
    safety: tools.safetyOf(definition.name),
    async execute(args, { signal }) {
      let execution: Awaited<ReturnType<WorkspaceTools['execute']>>;
      try {
        execution = await tools.execute(definition.name, args, { signal });
      } catch (error) {
        await snapshotMissingRead(definition.name, error);
        throw error;
      }
      for (const file of execution.files) {
        await snapshotFile({
          session: context.session,
          store: context.store,
          workspaceDir: tools.root,
          path: file.path,
          access: file.access,
        });
      }
      const content = typeof execution.result === 'string' ? execution.result : JSON.stringify(execution.result);
      return { content, isError: false };
    },
  }));

  /**
   * A file the session read as missing is part of what it saw: recorded as absent, so a file
   * created there later shows as `created-since` on the conflict check of a resume.
   */
  async function snapshotMissingRead(tool: string, error: unknown): Promise<void> {
    if (tool !== 'read_file' || !(error instanceof WorkspaceAccessError) || error.reason !== 'not-a-file') return;
    const resolved = await resolveWorkspacePath(tools.root, error.path).catch(() => null);
    if (resolved === null || resolved.exists) return;
    await snapshotFile({
      session: context.session,
      store: context.store,
      workspaceDir: tools.root,
      path: resolved.relative,
      access: 'read',
    });
  }
}
