// Creating a run's session: the header records how it runs (the run config under `run`,
// beside what the caller records), the workspace and its git state, and the first events.
import type { Session } from '@resume/core';
import type { EventInput, JsonValue } from '@resume/core/spec';
import { readGitState } from '../files/git-state.js';
import { RUN_OPTIONS_KEY, type RunConfig, runConfigAsJson } from './run-config.js';
import type { RunnerScope } from './runner-scope.js';

/** The message that states a run's task (tagged `task`, which continuations look for). */
export function taskMessage(task: string): EventInput {
  return {
    type: 'message-added',
    message: { role: 'user', content: task, speaker: 'user', round: null, tags: ['task'] },
  };
}

export async function createRunSession(
  scope: RunnerScope,
  input: {
    title: string;
    config: RunConfig;
    record?: Record<string, JsonValue> | undefined;
    initialEvents: EventInput[];
    parentId?: string;
    specHash?: string | null;
    /** A caller-chosen id (a worktree run names its branch after it) and where the run works. */
    id?: string;
    workspaceDir?: string;
  },
): Promise<Session> {
  const workspaceDir = input.workspaceDir ?? scope.options.workspaceDir;
  return scope.engine.createSession({
    ...(input.id === undefined ? {} : { id: input.id }),
    // Modes are resumable state machines that decide from the state what to do next (see ReplayPolicy).
    replay: 'keyed',
    title: input.title,
    mode: input.config.mode,
    workspaceDir,
    parentId: input.parentId ?? null,
    specHash: input.specHash ?? null,
    options: { ...(input.record ?? {}), [RUN_OPTIONS_KEY]: runConfigAsJson(input.config) },
    git: await readGitState(workspaceDir).catch(() => null),
    initialEvents: input.initialEvents,
  });
}
