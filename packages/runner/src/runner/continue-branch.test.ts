import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UsageError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { nextStepOf } from './next-step.js';
import { readRunConfig } from './run-config.js';
import { createRunner } from './runner.js';
import { createFakeModels, createRunnerInterruptedAt, createTestStore } from './test-kit.js';

async function finishedDiscussion() {
  const { engine } = createTestStore();
  const models = createFakeModels();
  const runner = createRunner({ engine: engine(), models: models.resolve, workspaceDir: '/workspace' });
  const parent = await runner.start({ mode: 'discussion', task: 'Pick a database', record: { provider: 'fake' } });
  return { engine, models, runner, parent };
}

describe('continue and branch', () => {
  it('continues a completed session in a child that sees the parent history and the follow-up', async () => {
    const { engine, models, runner, parent } = await finishedDiscussion();
    const callsBefore = models.calls.length;
    const child = await runner.continue(parent.sessionId, 'What about scale?');
    expect(child.status).toBe('completed');
    const state = await engine().readSession(child.sessionId);
    expect(state.header.parentId).toBe(parent.sessionId);
    expect(state.header.options.provider).toBe('fake');
    expect(state.messages[0]?.tags).toContain('continuation');
    expect(state.messages[0]?.content).toContain('NEW FOLLOW-UP: What about scale?');
    expect(state.messages.some((message) => message.tags?.includes('parent-history'))).toBe(true);
    const firstChildCall = models.calls[callsBefore];
    expect(firstChildCall?.lastMessage).toBe('What about scale?');
    expect(firstChildCall?.messageCount).toBeGreaterThan(2);
    // The child's own turns are its transcript, and each agent sees the turns before it.
    const ownTurns = state.messages.filter(
      (message) => message.role === 'assistant' && !message.tags?.includes('parent-history'),
    );
    const childCalls = models.calls.slice(callsBefore);
    expect(ownTurns).toHaveLength(childCalls.length);
    expect(childCalls[1]?.messageCount).toBe((childCalls[0]?.messageCount ?? 0) + 1);
    expect(child.conclusion).toBe(ownTurns.at(-1)?.content);
    // Listings show the follow-up as the child's task.
    expect((await engine().listSessions({ parentId: parent.sessionId }))[0]?.task).toBe('What about scale?');
    // The parent is untouched.
    expect((await engine().readSession(parent.sessionId)).status).toBe('completed');
  });

  it("works in the parent's workspace, wherever the follow-up is asked from, unless another is chosen", async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'conclave-follow-up-workspace-'));
    try {
      const { engine } = createTestStore();
      const models = createFakeModels();
      const projectDir = path.join(root, 'project');
      const elsewhereDir = path.join(root, 'elsewhere');
      for (const directory of [projectDir, elsewhereDir]) mkdirSync(directory);
      const inProject = createRunner({ engine: engine(), models: models.resolve, workspaceDir: projectDir });
      const parent = await inProject.start({ mode: 'discussion', task: 'Pick a database' });
      // The follow-up is asked from another directory (a picker opened there).
      const fromElsewhere = createRunner({ engine: engine(), models: models.resolve, workspaceDir: elsewhereDir });
      const child = await fromElsewhere.continue(parent.sessionId, 'What about scale?');
      expect((await engine().readSession(child.sessionId)).header.workspaceDir).toBe(projectDir);
      const chosen = await fromElsewhere.continue(parent.sessionId, 'And here?', { workspaceDir: '.' });
      expect((await engine().readSession(chosen.sessionId)).header.workspaceDir).toBe(elsewhereDir);
      // A parent whose workspace is gone: the follow-up works where it is asked from.
      rmSync(projectDir, { recursive: true, force: true });
      const orphan = await fromElsewhere.continue(parent.sessionId, 'Still?');
      expect((await engine().readSession(orphan.sessionId)).header.workspaceDir).toBe(elsewhereDir);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('--models a,b gives a follow-up one agent per model, as on a new run', async () => {
    const { engine, runner, parent } = await finishedDiscussion();
    const agentsOf = async (id: string) => {
      const { config } = readRunConfig(await engine().readSession(id));
      if (!('agents' in config) || !Array.isArray(config.agents)) throw new Error(`no agents in ${config.mode}`);
      return config.agents as { name: string; model?: string }[];
    };
    const parentAgents = await agentsOf(parent.sessionId);
    expect(parentAgents).toHaveLength(3);
    const child = await runner.continue(parent.sessionId, 'What about scale?', { models: ['m-a', 'm-b'] });
    const childAgents = await agentsOf(child.sessionId);
    expect(childAgents.map((agent) => agent.model)).toEqual(['m-a', 'm-b']);
    // The recorded agents keep their names and roles.
    expect(childAgents.map((agent) => agent.name)).toEqual(parentAgents.slice(0, 2).map((agent) => agent.name));
    const wider = await runner.continue(parent.sessionId, 'And cost?', { models: ['m-a', 'm-b', 'm-c', 'm-d'] });
    expect((await agentsOf(wider.sessionId)).map((agent) => agent.model)).toEqual(['m-a', 'm-b', 'm-c', 'm-d']);
  });

  it('resetDiscussion keeps only the conclusion as context', async () => {
    const { engine, models, runner, parent } = await finishedDiscussion();
    const callsBefore = models.calls.length;
    const child = await runner.continue(parent.sessionId, 'Start over on cost', {
      resetDiscussion: true,
      forceConsensus: true,
    });
    const state = await engine().readSession(child.sessionId);
    expect(state.messages[0]?.content).toContain(parent.conclusion ?? 'missing');
    expect(models.calls[callsBefore]?.messageCount).toBe(1);
    expect(models.calls.slice(callsBefore).filter((call) => call.role === 'judge')).toHaveLength(1);
  });

  it('refuses to resume a completed session and says to continue it', async () => {
    const { runner, parent } = await finishedDiscussion();
    await expect(runner.resume(parent.sessionId)).rejects.toSatisfy(
      (error) =>
        UsageError.isInstance(error) &&
        JSON.stringify(nextStepOf(error)) === JSON.stringify({ kind: 'ask-follow-up', sessionId: parent.sessionId }),
    );
  });

  it('branches from the end of round 1 with a follow-up, leaving the parent unchanged', async () => {
    const { engine, models, runner, parent } = await finishedDiscussion();
    const parentBefore = await engine().readSession(parent.sessionId);
    const callsBefore = models.calls.length;
    const branch = await runner.branch(parent.sessionId, { at: 'round 1', followUp: 'What if we had no budget?' });
    expect(branch.status).toBe('completed');
    const state = await engine().readSession(branch.sessionId);
    expect(state.header.parentId).toBe(parent.sessionId);
    expect(state.header.branchPoint).toBe(parentBefore.checkpoints.find((c) => c.label === 'round 1, judge')?.seq);
    // Round 1 came from the parent; round 2 ran in the branch and saw the follow-up.
    expect(models.calls.slice(callsBefore).map((call) => call.round)).toEqual([2, 2, 2, 2]);
    expect(state.messages.some((message) => message.content === 'What if we had no budget?')).toBe(true);
    const parentAfter = await engine().readSession(parent.sessionId);
    expect(parentAfter.lastSeq).toBe(parentBefore.lastSeq);
  });

  it('asks what to do about a model the provider no longer offers, and uses the replacement', async () => {
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = createRunnerInterruptedAt('round 1, agent architect', {
      engine: engine(),
      models: models.resolve,
      workspaceDir: '/workspace',
    });
    const agents = [
      { name: 'architect', model: 'old-model' },
      { name: 'critic', model: 'old-model' },
    ];
    const first = await runner.start({ mode: 'discussion', task: 'Pick a database', agents });
    expect(first.status).toBe('interrupted');
    const asked: string[] = [];
    const resumer = createRunner({
      engine: engine(),
      models: models.resolve,
      workspaceDir: '/workspace',
      availableModels: async () => ['new-model', 'fake-model'],
      decisions: {
        modelUnavailable: (finding) => {
          asked.push(finding.model);
          return { choice: 'use-other-model', model: 'new-model' };
        },
      },
    });
    const plan = await resumer.plan(first.sessionId);
    expect(plan.changes.compatibility?.findings.map((finding) => finding.kind)).toContain('model-unavailable');
    const resumed = await resumer.resume(first.sessionId);
    expect(resumed.status).toBe('completed');
    expect(asked).toEqual(['old-model']);
    expect(
      models.calls
        .slice(1)
        .filter((call) => call.role === 'agent')
        .map((call) => call.model),
    ).toEqual(expect.arrayContaining(['new-model']));
    expect(models.calls.slice(1).some((call) => call.model === 'old-model')).toBe(false);
  });
});
