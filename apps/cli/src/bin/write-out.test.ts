// A quick answer's output written straight to its descriptor: all of it through a pipe that
// fills up, nothing more once the reader left, and the rest handed back when the descriptor
// would block rather than waiting or losing it.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeWithoutWaiting } from './write-out.js';

describe('writeWithoutWaiting', () => {
  let directory: string;
  let fifo: string;
  const open: number[] = [];
  const openFifo = (flags: number) => {
    const fd = openSync(fifo, flags | constants.O_NONBLOCK);
    open.push(fd);
    return fd;
  };
  /** Everything in the pipe now. */
  const drain = (fd: number) => {
    const chunks: Buffer[] = [];
    const buffer = Buffer.alloc(64 * 1024);
    for (;;) {
      try {
        const read = readSync(fd, buffer);
        if (read === 0) break;
        chunks.push(Buffer.from(buffer.subarray(0, read)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break;
        throw error;
      }
    }
    return Buffer.concat(chunks);
  };

  beforeEach(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'conclave-write-out-'));
    fifo = path.join(directory, 'out');
    execFileSync('mkfifo', [fifo]);
  });
  afterEach(async () => {
    for (const fd of open.splice(0)) closeSync(fd);
    await rm(directory, { recursive: true, force: true });
  });

  it('writes all of a short answer, and hands back the rest when a non-blocking pipe is full', () => {
    const reader = openFifo(constants.O_RDONLY);
    const writer = openFifo(constants.O_WRONLY);
    expect(writeWithoutWaiting(writer, Buffer.from('0.1.0\n')).length).toBe(0);
    expect(drain(reader).toString()).toBe('0.1.0\n');

    // A listing larger than the pipe holds: what went plus what is handed back is all of it, in order.
    const listing = Buffer.from(
      JSON.stringify(Array.from({ length: 4000 }, (_, index) => ({ index, title: 'x'.repeat(40) }))),
    );
    expect(listing.length).toBeGreaterThan(256 * 1024);
    const rest = writeWithoutWaiting(writer, listing);
    expect(rest.length).toBeGreaterThan(0);
    const went = drain(reader);
    expect(went.length + rest.length).toBe(listing.length);
    expect(Buffer.concat([went, rest]).equals(listing)).toBe(true);
  });

  it('stops without an error once the reader left', () => {
    const reader = openFifo(constants.O_RDONLY);
    const writer = openFifo(constants.O_WRONLY);
    closeSync(reader);
    open.splice(open.indexOf(reader), 1);
    expect(writeWithoutWaiting(writer, Buffer.from('[{"index":1}]\n')).length).toBe(0);
  });
});
