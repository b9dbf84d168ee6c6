import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

  it('replaces the modules named `empty` with an empty one, and runs the child in the directory given', async () => {
    const entry = new URL('./__fixtures__/optional-import.ts', import.meta.url);
    await expect(bundleChild(entry)).rejects.toThrow(/conclave-not-installed/);
    const optional = await bundleChild(entry, { empty: ['conclave-not-installed'] });
    const directory = realpathSync(mkdtempSync(path.join(tmpdir(), 'conclave-cwd-')));
    try {
      const running = optional.spawn([], { PATH: process.env.PATH }, directory);
      const lines: string[] = [];
      onLines(running.stdout, (line) => lines.push(line));
      expect(await exited(running)).toEqual({ code: 0, signal: null });
      expect(lines).toEqual(['missing={}', `cwd=${directory}`]);
    } finally {
      await optional.remove();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
