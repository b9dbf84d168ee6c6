// Atomic replace for every file the store rewrites: write a temporary file in the
// same directory, fsync it, rename it over the target, fsync the directory. A crash
// leaves either the old file or the new one, never a mix.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { FileSystem } from './file-system.js';

export function temporaryName(name: string): string {
  return `.${name}.tmp-${randomBytes(6).toString('hex')}`;
}

/** Writes `data` to a fresh temporary file next to `target` and makes it durable; returns its path. */
export async function writeTemporary(fileSystem: FileSystem, target: string, data: Uint8Array): Promise<string> {
  const temporary = path.join(path.dirname(target), temporaryName(path.basename(target)));
  const file = await fileSystem.createExclusive(temporary);
  try {
    await file.write(data);
    await file.datasync();
  } catch (error) {
    await file.close().catch(() => {});
    await fileSystem.remove(temporary).catch(() => {});
    throw error;
  }
  await file.close();
  return temporary;
}

export async function writeFileAtomically(fileSystem: FileSystem, target: string, data: Uint8Array): Promise<void> {
  const temporary = await writeTemporary(fileSystem, target, data);
  try {
    await fileSystem.rename(temporary, target);
  } catch (error) {
    await fileSystem.remove(temporary).catch(() => {});
    throw error;
  }
  await fileSystem.syncDirectory(path.dirname(target));
}
