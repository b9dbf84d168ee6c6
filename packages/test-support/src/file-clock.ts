// Waiting on the file system's clock instead of sleeping a fixed time.
import { stat } from 'node:fs/promises';

/**
 * Resolves once the last change of `file` (its modification or change time) is more than `ms`
 * old. File times come from a coarser clock than `Date.now()` (a few ms): to be sure a later
 * change moves them, wait longer than that.
 */
export async function untilChangeIsOlderThan(file: string, ms: number): Promise<void> {
  const status = await stat(file);
  const settled = Math.max(status.mtimeMs, status.ctimeMs) + ms;
  while (Date.now() <= settled) await new Promise((resolve) => setTimeout(resolve, settled + 1 - Date.now()));
}
