// Temporary directories that vitest removes after each test (never the user's home).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';

/** A fresh directory, removed with everything in it when the current test finishes. */
export function temporaryDirectory(prefix = 'conclave-reliability-'): string {
  const directory = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}
