// `conclave files <id>`: the versions of workspace files a session keeps for the user (the
// content a conflict "restore" replaced with the snapshot), and `--restore` to get one back.
// Nothing is ever overwritten: a version is written only where no file exists yet.
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { FileNotFoundError, type JournalEvent, UsageError } from '@resume/core/spec';
import { readUserFileBytes } from '@resume/runner';
import type { CliContext } from '../context/cli-context.js';
import { formatWhen } from '../output/format.js';
import { writeOutputFile } from '../output/output-file.js';
import { resolveSession } from '../sessions/resolve-session.js';

type SavedVersion = Extract<JournalEvent, { type: 'file-version-saved' }>;

export interface FilesCommandInput {
  reference: string;
  /** A number from the listing, or a path (its newest saved version). */
  restore?: string;
  /** Where to write the version (relative to the current directory); default its workspace path. */
  to?: string;
}

const reasons: Record<SavedVersion['reason'], string> = {
  'replaced-by-restore': 'your version, replaced by a restore at resume',
};

export async function filesCommand(context: CliContext, input: FilesCommandInput): Promise<number> {
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  const versions: SavedVersion[] = [];
  for await (const event of engine.readEvents(id)) if (event.type === 'file-version-saved') versions.push(event);
  if (input.restore !== undefined) return restoreVersion(context, id, versions, input.restore, input.to);
  if (input.to !== undefined) throw new UsageError('--to names where --restore writes a version; it needs --restore.');

  if (context.options.json) {
    context.terminal.data(
      JSON.stringify(
        versions.map((version, index) => ({
          number: index + 1,
          path: version.path,
          size: version.size,
          hash: version.hash,
          savedAt: version.at,
          seq: version.seq,
          reason: version.reason,
        })),
      ),
    );
    return 0;
  }
  if (versions.length === 0) {
    context.terminal.out(
      `Session ${id} keeps no saved file versions (a conflict restore saves the version it replaces).`,
    );
    return 0;
  }
  context.terminal.out(context.terminal.dim(`${'#'.padStart(3)}  ${'SAVED'.padEnd(16)}  ${'SIZE'.padStart(9)}  PATH`));
  versions.forEach((version, index) => {
    context.terminal.out(
      `${String(index + 1).padStart(3)}  ${formatWhen(version.at).padEnd(16)}  ${`${version.size} B`.padStart(9)}  ${version.path}  ${context.terminal.dim(`(${reasons[version.reason]})`)}`,
    );
  });
  context.terminal.note(
    context.terminal.dim(`Get one back with: conclave files ${id} --restore <#|path> [--to <file>]`),
  );
  return 0;
}

async function restoreVersion(
  context: CliContext,
  id: string,
  versions: readonly SavedVersion[],
  which: string,
  to: string | undefined,
): Promise<number> {
  const version = pickVersion(versions, which);
  if (!version) {
    const known =
      versions.length === 0
        ? 'it keeps none'
        : `it keeps ${versions.map((each, index) => `${index + 1} ${each.path}`).join(', ')}`;
    throw new UsageError(`Session ${id} has no saved version "${which}" (${known}).`, {
      hint: `List them: conclave files ${id}`,
    });
  }
  const engine = await context.engine();
  const content = await engine.store.getBlob(version.blob);
  if (content === null) {
    throw new FileNotFoundError(
      version.blob,
      `The saved version of ${version.path} (blob ${version.blob}) is missing from the store.`,
      {
        hint: 'It may have been removed by hand; an export of this session taken earlier still holds it.',
      },
    );
  }
  const state = await engine.readSession(id);
  const workspace = state.header.workspaceDir;
  if (to === undefined && workspace === null) {
    throw new UsageError(`Session ${id} records no workspace to write ${version.path} into.`, {
      hint: `Name the file to write: conclave files ${id} --restore ${which} --to <file>`,
    });
  }
  const target =
    to === undefined ? path.join(workspace as string, version.path) : path.resolve(context.environment.cwd, to);
  const existing = sameContent(target, content);
  if (existing !== null) {
    if (existing) {
      context.terminal.out(`${target} already has this version; nothing was written.`);
      return 0;
    }
    throw new UsageError(`${target} exists with other content; nothing was written.`, {
      hint: `Write the saved version elsewhere and compare: conclave files ${id} --restore ${which} --to ${version.path}.saved`,
    });
  }
  // A link, a directory, a device or a FIFO at the target is refused by name; a new file is linked into place.
  writeOutputFile(target, content, { force: false, mode: 0o644 });
  context.terminal.out(
    `Wrote the saved version of ${version.path} (${version.size} B, saved ${formatWhen(version.at)}) to ${target}.`,
  );
  return 0;
}

function pickVersion(versions: readonly SavedVersion[], which: string): SavedVersion | undefined {
  if (/^\d+$/.test(which)) return versions[Number(which) - 1];
  const wanted = which.replaceAll('\\', '/').replace(/^\.\//, '');
  return versions.filter((version) => version.path === wanted).at(-1);
}

/** Whether a regular file at `target` holds exactly `content` (null: no regular file there). */
function sameContent(target: string, content: Uint8Array): boolean | null {
  const stats = lstatSync(target, { throwIfNoEntry: false });
  if (!stats?.isFile()) return null;
  if (stats.size !== content.length) return false;
  return Buffer.compare(readUserFileBytes(target, { what: 'file', maxBytes: content.length }), content) === 0;
}
