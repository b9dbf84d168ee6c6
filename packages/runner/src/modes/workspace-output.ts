// Files a mode writes into the workspace when it finishes (iterative notes and output,
// workflow artifacts): confined to the workspace, written atomically, snapshotted so a
// later resume can tell whether someone changed them.
import { writeFileAtomically } from '../files/file-conflicts.js';
import { snapshotFile } from '../files/file-snapshots.js';
import { resolveWorkspacePath } from '../files/workspace-path.js';
import type { ModeContext } from './mode-context.js';

export interface OutputFile {
  path: string;
  content: string;
}

/** Writes the files as one durable step, so a resume after it does not write them again. */
export async function writeOutputFiles(
  context: ModeContext,
  key: string,
  files: OutputFile[],
  placement: { branch?: string; inserted?: boolean } = {},
): Promise<string[]> {
  return context.session.step(
    key,
    async () => {
      const written: string[] = [];
      for (const file of files) {
        const resolved = await resolveWorkspacePath(context.workspaceDir, file.path);
        await writeFileAtomically(resolved.absolute, file.content);
        await snapshotFile({
          session: context.session,
          store: context.store,
          workspaceDir: context.workspaceDir,
          path: resolved.relative,
          access: 'write',
        });
        written.push(resolved.relative);
      }
      return written;
    },
    // Rewriting the same deterministic content is harmless, so a crash mid-write just writes again.
    { safety: 'idempotent', ...placement },
  );
}
