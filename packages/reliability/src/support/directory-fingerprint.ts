// Everything under a directory (paths, kinds, sizes, contents, modification times),
// to prove an operation neither wrote nor replaced anything there.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

export function fingerprint(directory: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const full = path.join(current, name);
      const status = lstatSync(full);
      const relative = path.relative(directory, full);
      if (status.isSymbolicLink()) entries[relative] = `link ${readlinkSync(full)}`;
      else if (status.isDirectory()) {
        entries[relative] = `directory ${status.mtimeMs}`;
        walk(full);
      } else {
        const digest = createHash('sha256').update(readFileSync(full)).digest('hex');
        entries[relative] = `file ${status.size} ${status.mtimeMs} ${digest}`;
      }
    }
  };
  walk(directory);
  return entries;
}
