// Offers the workspace tools (read_file, write_file, list_files, run_command) to the
// orchestrated mode: each call's touched files are snapshotted (hash + content as a blob)
// inside the call's step, so the snapshot commits with the step's outcome.
import type { Session } from '@resume/core';
import type { SessionStore } from '@resume/core/spec';
import { snapshotFile } from '../files/file-snapshots.js';
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
      const execution = await tools.execute(definition.name, args, { signal });
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
}
