// The example as a user runs it: a real process, SIGKILLed in the middle of its run, then
// run again. Uses the built packages (./bin/test builds them first).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const exampleDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const agent = path.join(exampleDirectory, 'src/agent.ts');
const cli = path.resolve(exampleDirectory, '../../apps/cli/dist/conclave.mjs');

const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

async function temporary(): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-langgraph-agent-'));
  directories.push(directory);
  return directory;
}

function environment(home: string, toolLog: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', CONCLAVE_HOME: home, AGENT_TOOL_LOG: toolLog, AGENT_TOOL_DELAY_MS: '150' };
}

/** Runs the agent to the end and returns its output. */
function runToEnd(home: string, toolLog: string): string {
  return execFileSync(process.execPath, [agent], { env: environment(home, toolLog), encoding: 'utf8' });
}

/** Starts the agent and SIGKILLs it once `line` appeared on its output. */
async function runAndKill(home: string, toolLog: string, line: string): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, [agent], { env: environment(home, toolLog) });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes(line)) {
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`the agent was not killed; it printed:\n${output}`)),
    );
  });
  return output;
}

const transcriptOf = (output: string) => output.split('\n').find((line) => line.startsWith('transcript: '));

const toolCalls = async (file: string) =>
  existsSync(file)
    ? (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { city: string }).city)
    : [];

describe('examples/langgraph-agent', () => {
  // Three real processes, each loading LangGraph: minutes on a loaded machine, not the default 30 s.
  it('survives kill -9 in the middle of its tool calls and continues to the transcript of an uninterrupted run', {
    timeout: 180_000,
  }, async () => {
    expect(existsSync(cli), 'build first: ./bin/pnpm build').toBe(true);
    const cleanHome = await temporary();
    const clean = runToEnd(cleanHome, path.join(cleanHome, 'tools.jsonl'));

    const home = await temporary();
    const toolLog = path.join(home, 'tools.jsonl');
    // Killed while it looks up the third city: the first two lookups are durable checkpoints.
    const first = await runAndKill(home, toolLog, 'tools: Lagos');
    expect(first).toContain('starting');
    expect(transcriptOf(first)).toBeUndefined();
    const second = runToEnd(home, toolLog);
    expect(second).toMatch(/continuing after \d+ messages/);
    expect(transcriptOf(second)).toBe(transcriptOf(clean));

    // Completed tool calls are not made again; only the one in flight at the kill may be.
    const calls = await toolCalls(toolLog);
    expect(calls.filter((city) => city === 'Paris')).toHaveLength(1);
    for (const city of ['Lagos', 'Osaka', 'Lima']) {
      expect(calls.filter((called) => called === city).length).toBeGreaterThanOrEqual(1);
      expect(calls.filter((called) => called === city).length).toBeLessThanOrEqual(2);
    }

    // The thread is a session of mode langgraph for `conclave sessions list`.
    const listed = JSON.parse(
      execFileSync(process.execPath, [cli, 'sessions', 'list', '--json', '--home', home], { encoding: 'utf8' }),
    ) as Array<{ mode: string; title: string }>;
    expect(listed).toEqual([expect.objectContaining({ mode: 'langgraph', title: 'LangGraph agent: weather-desk' })]);
  });
});
