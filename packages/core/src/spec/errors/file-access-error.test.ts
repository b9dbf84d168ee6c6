import { describe, expect, it } from 'vitest';
import { fileAccessError } from './file-access-error.js';

const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe('fileAccessError', () => {
  it('types a refusal by the operating system as permission denied, naming the path', () => {
    for (const code of ['EACCES', 'EPERM']) {
      const error = fileAccessError(errno(code), '/home/u/.conclave/sessions', 'read');
      expect(error).toMatchObject({
        code: 'permission-denied',
        path: '/home/u/.conclave/sessions',
      });
      expect(error?.message).toBe('Permission denied: cannot read /home/u/.conclave/sessions');
    }
  });

  it('types a missing path as not found and leaves every other failure to the caller', () => {
    expect(fileAccessError(errno('ENOENT'), '/tmp/missing.json', 'read')).toMatchObject({
      code: 'file-not-found',
      path: '/tmp/missing.json',
    });
    expect(fileAccessError(errno('EIO'), '/tmp/x', 'write')).toBeNull();
    expect(fileAccessError(new Error('plain'), '/tmp/x', 'write')).toBeNull();
  });
});
