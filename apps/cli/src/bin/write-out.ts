// A quick answer's output written straight to its descriptor (bin/conclave.ts): building
// `process.stdout` for a pipe makes a socket, a few ms of an answer that takes twenty.
import { writeSync } from 'node:fs';

/**
 * Writes `bytes` to `fd` as far as it goes without waiting, and returns what is left: nothing
 * once all of it went or the reader left (EPIPE: there is no one to write to), the rest when the
 * descriptor would block (a non-blocking one, shared with another program) for a stream to
 * write when it can.
 */
export function writeWithoutWaiting(fd: number, bytes: Buffer): Buffer {
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(fd, bytes, written);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') return bytes.subarray(bytes.length);
    if (code !== 'EAGAIN') throw error;
  }
  return bytes.subarray(written);
}
