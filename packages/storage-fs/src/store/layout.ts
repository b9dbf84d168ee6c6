// The store's directories: created private on first use (and made durable, so a first
// session survives a power loss), never followed when a symlink replaced one of them.
import path from 'node:path';
import { SessionNotFoundError, StoreIoError, sessionIdSchema } from '@resume/core/spec';
import { errorCode, type FileSystem } from '../file-system/file-system.js';
import type { StoreContext } from './store-context.js';

export interface Layout {
  /** Creates the home and its folders once; refuses a home or folder that is not a real directory. */
  ensure(): Promise<void>;
  /** Whether the id is valid and names a real session directory (a symlinked one is refused). */
  exists(sessionId: string): Promise<boolean>;
  require(sessionId: string): Promise<void>;
  /** Refuses `directory` unless it is a real directory (not a symlink, not a file). */
  requireDirectory(directory: string): Promise<void>;
}

export function createLayout(context: StoreContext): Layout {
  const { paths, plain, durable } = context;
  let layout: Promise<void> | null = null;

  const requireDirectory = async (directory: string) => {
    const status = await plain.status(directory);
    if (!status?.isDirectory) {
      throw new StoreIoError(`${directory} is not a directory (a symlink is not followed).`, directory, {
        hint: 'Replace it with a real directory (or remove it and let Conclave create it).',
      });
    }
  };

  const ensure = () => {
    layout ??= (async () => {
      await makeDirectories(durable, paths.home);
      if (!(await plain.status(paths.home))?.isDirectory) {
        throw new StoreIoError(`The data home ${paths.home} is not a directory.`, paths.home, {
          hint: 'Point --home (or CONCLAVE_HOME) at a directory, or at a path that does not exist yet.',
        });
      }
      let created = false;
      for (const directory of [paths.sessions, paths.blobs, paths.index]) {
        created = (await makeDirectory(plain, directory)) || created;
        await requireDirectory(directory);
      }
      // A new directory's entry is durable only once its parent is synced (a first session must survive a power loss).
      if (created) await durable.syncDirectory(paths.home);
    })();
    // A failure (a full disk) is not remembered: the next call tries again.
    layout.catch(() => {
      layout = null;
    });
    return layout;
  };

  const exists = async (id: string): Promise<boolean> => {
    if (!sessionIdSchema.safeParse(id).success) return false;
    await ensure();
    const status = await plain.status(paths.session(id));
    if (status?.isSymbolicLink) {
      throw new StoreIoError(
        `${paths.session(id)} is a symlink; the store never follows links out of it.`,
        paths.session(id),
      );
    }
    return status?.isDirectory ?? false;
  };

  return {
    ensure,
    exists,
    async require(id) {
      if (!(await exists(id))) throw new SessionNotFoundError(id);
    },
    requireDirectory,
  };
}

/** Creates a directory; false when it was already there. */
export async function makeDirectory(fileSystem: FileSystem, directory: string): Promise<boolean> {
  return fileSystem.makeDirectory(directory).then(
    () => true,
    (error: unknown) => {
      if (errorCode(error) !== 'EEXIST') throw error;
      return false;
    },
  );
}

/** Creates the home and its missing parents, each new one private. */
async function makeDirectories(fileSystem: FileSystem, directory: string): Promise<void> {
  if (await fileSystem.status(directory)) return;
  await makeDirectories(fileSystem, path.dirname(directory));
  if (await makeDirectory(fileSystem, directory)) await fileSystem.syncDirectory(path.dirname(directory));
}
