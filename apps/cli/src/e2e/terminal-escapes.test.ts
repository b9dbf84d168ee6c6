// End-to-end: text a session carries (its task, what the models said, a command's output, input
// quoted in an error) never reaches the terminal as controls that act: the bytes the built CLI
// writes hold no ESC, BEL, C1 or bidirectional control; JSON output keeps the text exact.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type CliResult } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sandbox = sandboxFixture();

/** Sets the window title, clears the screen, a C1 CSI, and an override that reverses what follows. */
const HOSTILE = 'x \u001b]0;PWNED\u0007\u001b[2J \u009b31m \u202egnp.exe';
/** What a terminal acts on, tab and newline apart: C0, DEL, C1, bidi embeddings, overrides, isolates. */
const ACTING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

function expectInert(result: CliResult, what: string): void {
  expect(result.stdout, `${what}: stdout`).not.toMatch(ACTING);
  expect(result.stderr, `${what}: stderr`).not.toMatch(ACTING);
}

describe('conclave shows hostile text without letting it act on the terminal', () => {
  it('a discussion whose task carries escapes: the run, list, show, transcript and markdown export', async () => {
    const run = await sandbox.run([HOSTILE, '--max-rounds', '1', '--force-consensus']);
    expect(run.code, run.stderr).toBe(0);
    expectInert(run, 'run');
    // The scripted agents quote the task: their turns carry the escapes too, shown visibly.
    expect(run.stderr).toContain('␛]0;PWNED␇␛[2J <U+009B>31m <U+202E>gnp.exe');
    const sessionId = /session (\S+)/.exec(run.stderr)?.[1] ?? '';

    const list = await sandbox.run(['sessions', 'list']);
    expectInert(list, 'sessions list');
    expect(list.stdout).toContain('x ␛]0;PWNED␇␛[2J <U+009B>31m <U+202E>gnp.exe');

    for (const args of [
      ['sessions', 'show', sessionId],
      ['sessions', 'show', sessionId, '--transcript'],
      ['sessions', 'export', sessionId, '--format', 'md'],
      ['checkpoints', 'list', sessionId],
      ['sessions', 'cleanup', '--older-than', '0d', '--dry-run'],
    ]) {
      const shown = await sandbox.run(args);
      expect(shown.code, shown.stderr).toBe(0);
      expectInert(shown, args.join(' '));
    }
    const exported = await sandbox.run(['sessions', 'export', sessionId, '--format', 'md', '-o', 'talk.md']);
    expect(exported.code, exported.stderr).toBe(0);
    const markdown = await readFile(path.join(sandbox.workspace, 'talk.md'), 'utf8');
    expect(markdown).not.toMatch(ACTING);
    expect(markdown).toContain('# x ␛]0;PWNED␇␛[2J <U+009B>31m <U+202E>gnp.exe');

    // JSON keeps the text exactly as stored.
    const listed = await sandbox.json<{ title: string }[]>(['sessions', 'list']);
    expect(listed[0]?.title).toBe(HOSTILE);
    const json = await sandbox.json<{ title: string; messages: { content: string }[] }>([
      'sessions',
      'show',
      sessionId,
    ]);
    expect(json.title).toBe(HOSTILE);
    expect(json.messages[0]?.content).toBe(HOSTILE);
  });

  it('a workflow whose shell step prints escapes and fails: progress, the error and sessions show', async () => {
    const flow = [
      'name: hostile',
      'variables: { topic: "" }',
      'agents:',
      '  echoer: { prompt: "You repeat." }',
      'steps:',
      '  - agent: echoer',
      '    input: "Repeat {{ topic }}"',
      `  - shell: "printf 'out \\\\033]0;PWNED\\\\007\\\\033[2J\\\\n'; printf 'err \\\\033[2J\\\\302\\\\233\\\\n' >&2; exit 3"`,
      '',
    ].join('\n');
    await writeFile(path.join(sandbox.workspace, 'hostile.yaml'), flow);
    const run = await sandbox.run(['run', 'hostile.yaml', '--var', `topic=${HOSTILE}`]);
    expect(run.code).toBe(1);
    expectInert(run, 'run');
    expect(run.stderr).toContain('␛[2J');
    const sessionId = /session (\S+)/.exec(run.stderr)?.[1] ?? '';
    for (const args of [
      ['sessions', 'show', sessionId],
      ['sessions', 'show', sessionId, '--transcript'],
      ['run', '--resume', sessionId, '--dry-run'],
    ]) {
      const shown = await sandbox.run(args);
      expectInert(shown, args.join(' '));
    }
  });

  it('an error that quotes what the user typed', async () => {
    const missing = await sandbox.run(['sessions', 'show', `abc${HOSTILE}`]);
    expect(missing.code).toBe(66);
    expectInert(missing, 'sessions show <hostile>');
    expect(missing.stderr).toContain('␛]0;PWNED␇');
    const usage = await sandbox.run(['sessions', 'list', '--since', HOSTILE]);
    expect(usage.code).toBe(64);
    expectInert(usage, 'sessions list --since <hostile>');
    const unknown = await sandbox.run(['sessions', 'list', `--x${HOSTILE}`]);
    expect(unknown.code).toBe(64);
    expectInert(unknown, 'sessions list --<hostile>');
  });
});
