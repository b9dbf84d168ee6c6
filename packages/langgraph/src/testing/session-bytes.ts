// Test support: what a session takes on the file store, its folder's files in bytes.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

export async function sessionBytes(home: string, sessionId: string): Promise<number> {
  const folder = path.join(home, 'sessions', sessionId);
  let total = 0;
  for (const name of await readdir(folder)) {
    const info = await stat(path.join(folder, name));
    if (info.isFile()) total += info.size;
  }
  return total;
}
