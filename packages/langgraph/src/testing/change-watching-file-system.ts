// Test support: the node file system, calling `beforeChange(n)` before its n-th change to a file
// (a write, fsync, create, rename, link, removal, truncation or directory sync), which may throw
// (a simulated I/O failure) or kill the process, so every point of an operation can be its last.
import { createNodeFileSystem, type FileSystem, type WritableFile } from '@resume/storage-fs';

export function changeWatchingFileSystem(beforeChange: (changes: number) => void): FileSystem {
  const files = createNodeFileSystem();
  let changes = 0;
  const change = () => {
    changes += 1;
    beforeChange(changes);
  };
  const writable = (file: WritableFile): WritableFile => ({
    ...file,
    write: async (data) => {
      change();
      return file.write(data);
    },
    datasync: async () => {
      change();
      return file.datasync();
    },
    size: () => file.size(),
    close: () => file.close(),
  });
  const changing = ['makeDirectory', 'rename', 'link', 'remove', 'removeTree', 'truncate', 'syncDirectory'] as const;
  const changed = Object.fromEntries(
    changing.map((name) => [
      name,
      async (...args: unknown[]) => {
        change();
        return (files[name] as (...values: unknown[]) => Promise<unknown>).apply(files, args);
      },
    ]),
  ) as Pick<FileSystem, (typeof changing)[number]>;
  return {
    ...files,
    ...changed,
    openAppend: async (path) => writable(await files.openAppend(path)),
    createExclusive: async (path) => {
      change();
      return writable(await files.createExclusive(path));
    },
  };
}
