import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConclaveError } from '@resume/core/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitCodeFor } from '../exit-codes/exit-codes.js';
import { readUserFile, USER_FILE_LIMITS } from './user-file.js';

const spec = { what: 'workflow spec', maxBytes: USER_FILE_LIMITS.text };

function refusal(file: string, options = spec): { exitCode: number; message: string } {
  try {
    readUserFile(file, options);
  } catch (error) {
    if (!ConclaveError.isInstance(error)) throw error;
    return { exitCode: exitCodeFor(error), message: error.message };
  }
  throw new Error(`${file} was read`);
}

describe('readUserFile', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'conclave-user-file-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('reads a regular file', () => {
    const file = path.join(folder, 'spec.yaml');
    writeFileSync(file, 'name: ok\n');
    expect(readUserFile(file, spec)).toBe('name: ok\n');
  });

  it('refuses devices without reading them', () => {
    for (const device of ['/dev/zero', '/dev/urandom', '/dev/null']) {
      expect(refusal(device)).toEqual({
        exitCode: 64,
        message: `The workflow spec ${device} is a character device, not a regular file.`,
      });
    }
  });

  it('refuses a FIFO at once, with no writer on the other end', () => {
    const fifo = path.join(folder, 'spec.yaml');
    execFileSync('mkfifo', [fifo]);
    expect(refusal(fifo)).toEqual({
      exitCode: 64,
      message: `The workflow spec ${fifo} is a named pipe (FIFO), not a regular file.`,
    });
  });

  it('names a directory, a name too long, a missing file and a path through a file', () => {
    mkdirSync(path.join(folder, 'specs'));
    expect(refusal(path.join(folder, 'specs'))).toEqual({
      exitCode: 64,
      message: `The workflow spec ${path.join(folder, 'specs')} is a directory, not a file.`,
    });
    expect(refusal(path.join(folder, `${'a'.repeat(300)}.yaml`))).toMatchObject({
      exitCode: 64,
      message: expect.stringContaining('The name of the workflow spec is too long'),
    });
    expect(refusal(path.join(folder, 'missing.yaml'))).toMatchObject({ exitCode: 66 });
    writeFileSync(path.join(folder, 'plain'), 'x');
    expect(refusal(path.join(folder, 'plain', 'spec.yaml'))).toMatchObject({
      exitCode: 64,
      message: expect.stringContaining('a part of its path is not a directory'),
    });
  });

  it('refuses a file over its kind’s limit, saying both sizes', () => {
    const file = path.join(folder, 'big.yaml');
    writeFileSync(file, '');
    truncateSync(file, USER_FILE_LIMITS.text + 1);
    expect(refusal(file)).toEqual({
      exitCode: 64,
      message: `The workflow spec ${file} is 1048577 bytes, more than the 1048576 bytes a workflow spec may be.`,
    });
    truncateSync(file, USER_FILE_LIMITS.text);
    expect(readUserFile(file, spec)).toHaveLength(USER_FILE_LIMITS.text);
  });

  it('reads past the size the file had when checked, and still stops at the limit', () => {
    // A /proc file says it is empty and is not: as a file that grew after the check.
    expect(readUserFile('/proc/self/status', spec)).toContain('Pid:');
    expect(refusal('/proc/self/status', { what: 'workflow spec', maxBytes: 100 })).toMatchObject({
      exitCode: 64,
      message: expect.stringContaining('more than the 100 B a workflow spec may be'),
    });
  });
});
