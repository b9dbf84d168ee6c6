import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BundledChild, bundleChild, collect, exited, onLines } from './child-process.js';

let child: BundledChild;
beforeAll(async () => {
  child = await bundleChild(new URL('./__fixtures__/echo-lines.ts', import.meta.url));
}, 60_000);
afterAll(() => child?.remove());

describe('bundleChild', () => {
  it('runs the bundled entry with the arguments and environment given, line by line', async () => {
    const running = child.spawn(['one', 'two', '--exit', '3'], { PATH: process.env.PATH, CONCLAVE_CHILD_WORD: 'hi' });
    const lines: string[] = [];
    onLines(running.stdout, (line) => lines.push(line));
    const stderr = collect(running.stderr);
    expect(await exited(running)).toEqual({ code: 3, signal: null });
    expect(stderr()).toBe('');
    expect(lines).toEqual(['one', 'two', 'word=hi', 'require=function']);
    // Already exited: resolves at once with the same outcome.
    expect(await exited(running)).toEqual({ code: 3, signal: null });
  });

  it('removes its temporary directory', async () => {
    const other = await bundleChild(new URL('./__fixtures__/echo-lines.ts', import.meta.url));
    expect(path.basename(other.outfile)).toBe('echo-lines.mjs');
    expect(existsSync(other.outfile)).toBe(true);
    await other.remove();
    expect(existsSync(path.dirname(other.outfile))).toBe(false);
  });
});
