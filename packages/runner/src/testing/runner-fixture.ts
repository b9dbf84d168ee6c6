// The set-up the runner's tests share: a temporary workspace made before each test and removed
// after it, and runners in it that take the test's engine and models and wait no time between
// retries unless the test says otherwise.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createRunner, type Runner, type RunnerOptions } from '../runner/runner.js';
import { createRunnerInterruptedAt, instantSleep } from '../runner/test-kit.js';

export interface RunnerFixtureOptions {
  /** Names the temporary directory (`conclave-<name>-…`), so a left-over one says which test made it. */
  name: string;
  /** The workspace is this folder of the temporary directory, which leaves room for paths outside it. */
  subdirectory?: string;
  /** Files the workspace holds when each test starts, by path relative to it. */
  files?: Record<string, string>;
}

/** What differs from the fixture's runner: the engine and models always, anything else on demand. */
export type FixtureRunnerOptions = Omit<RunnerOptions, 'workspaceDir'> & Partial<Pick<RunnerOptions, 'workspaceDir'>>;

export interface RunnerFixture {
  /** The temporary directory of the running test. */
  readonly root: string;
  /** The running test's workspace: the root, or its `subdirectory`. */
  readonly workspace: string;
  /** A path in the workspace. */
  path(...segments: string[]): string;
  /** A runner in the workspace whose retries wait no time. */
  runner(options: FixtureRunnerOptions): Runner;
  /** The same runner, interrupting itself at the checkpoint `at` names. */
  runnerInterruptedAt(at: Parameters<typeof createRunnerInterruptedAt>[0], options: FixtureRunnerOptions): Runner;
}

/** Registers the workspace's creation and removal around each test of the calling file. */
export function runnerFixture(options: RunnerFixtureOptions): RunnerFixture {
  let root: string | undefined;
  let workspace: string | undefined;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), `conclave-${options.name}-`));
    workspace = options.subdirectory === undefined ? root : path.join(root, options.subdirectory);
    await mkdir(workspace, { recursive: true });
    for (const [file, text] of Object.entries(options.files ?? {})) {
      await writeFile(path.join(workspace, file), text);
    }
  });
  afterEach(async () => {
    if (root !== undefined) await rm(root, { recursive: true, force: true });
    root = undefined;
    workspace = undefined;
  });
  const during = (value: string | undefined): string => {
    if (value === undefined) throw new Error('The runner fixture is only set up while a test runs');
    return value;
  };
  const withDefaults = (runnerOptions: FixtureRunnerOptions): RunnerOptions => ({
    workspaceDir: during(workspace),
    sleep: instantSleep,
    ...runnerOptions,
  });
  return {
    get root() {
      return during(root);
    },
    get workspace() {
      return during(workspace);
    },
    path: (...segments) => path.join(during(workspace), ...segments),
    runner: (runnerOptions) => createRunner(withDefaults(runnerOptions)),
    runnerInterruptedAt: (at, runnerOptions) => createRunnerInterruptedAt(at, withDefaults(runnerOptions)),
  };
}
