// `runner.start`: a run from a task (discussion, iterative, orchestrated). The task and any
// project file are journaled when the session starts, so a resume runs what was recorded.
import type { EventInput } from '@resume/core/spec';
import { UsageError } from '@resume/core/spec';
import { defaultJudge, defaultLead } from '../modes/agent-spec.js';
import { hashText } from '../workflow/workflow-spec.js';
import { drive } from './drive.js';
import type { RunConfig } from './run-config.js';
import {
  checkAgentNames,
  completeAgent,
  DEFAULT_CHUNK_SIZE,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MAX_ROUNDS,
  discussionAgents,
  positiveInteger,
} from './run-config-building.js';
import { checkRequestedTools } from './run-tools.js';
import { type RunnerScope, readInput } from './runner-scope.js';
import type { RunResult, StartInput } from './runner-types.js';
import { createRunSession, taskMessage } from './session-setup.js';

export async function start(scope: RunnerScope, input: StartInput): Promise<RunResult> {
  const task = input.task.trim();
  if (task === '')
    throw new UsageError('The task is empty.', {
      hint: 'Say what the session should work on: conclave "Evaluate my idea"',
    });
  const startOptions = input.options ?? {};
  const title = input.title ?? task.split('\n')[0]!.slice(0, 80);
  const initialEvents: EventInput[] = [taskMessage(task)];
  let config: RunConfig;
  switch (input.mode) {
    case 'discussion':
      config = {
        mode: 'discussion',
        task,
        agents: discussionAgents(input.agents),
        judge: input.judge ? completeAgent(input.judge, defaultJudge) : defaultJudge,
        maxRounds: positiveInteger(startOptions.maxRounds, 'maxRounds', DEFAULT_MAX_ROUNDS),
        forceConsensus: startOptions.forceConsensus ?? false,
      };
      checkAgentNames(config.agents, [config.judge.name]);
      break;
    case 'iterative': {
      if (!startOptions.project) {
        throw new UsageError('Iterative mode needs a project file.', { hint: 'Pass --project <file>.' });
      }
      const text = await readInput(scope, startOptions.project);
      initialEvents.push({
        type: 'spec-recorded',
        kind: 'project',
        path: startOptions.project,
        hash: hashText(text),
        blob: null,
        content: text,
      });
      config = {
        mode: 'iterative',
        task,
        agents: discussionAgents(input.agents),
        projectPath: startOptions.project,
        chunkSize: positiveInteger(startOptions.chunkSize, 'chunkSize', DEFAULT_CHUNK_SIZE),
        startChunk: positiveInteger(startOptions.startChunk, 'startChunk', 1),
      };
      checkAgentNames(config.agents, []);
      break;
    }
    case 'orchestrated':
      config = {
        mode: 'orchestrated',
        task,
        lead: input.agents?.[0] ? completeAgent(input.agents[0], defaultLead) : defaultLead,
        tools: startOptions.tools ?? [],
        maxIterations: positiveInteger(startOptions.maxIterations, 'maxIterations', DEFAULT_MAX_ITERATIONS),
      };
      checkRequestedTools(scope, config.tools, null);
      break;
  }
  initialEvents.push({
    type: 'spec-recorded',
    kind: 'task',
    path: null,
    hash: hashText(task),
    blob: null,
    content: task,
  });
  const session = await createRunSession(scope, {
    title,
    config,
    record: input.record,
    initialEvents,
    specHash: hashText(task),
  });
  return drive(scope, session, config, false);
}
