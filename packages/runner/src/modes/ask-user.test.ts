// The orchestrated agent's ask_user tool: the run ends `waiting` with the question, the
// answer is journaled with who gave it, and the resumed run hands it to the model as the
// tool's result without repeating the turns before it.
import { describe, expect, it } from 'vitest';
import { createFakeModels, createTestStore } from '../runner/test-kit.js';
import { runnerFixture } from '../testing/runner-fixture.js';

const fixture = runnerFixture({ name: 'ask-user' });

describe('ask_user in orchestrated mode', () => {
  it('waits for the user, then resumes with the answer as the tool result', async () => {
    const testStore = createTestStore();
    const models = createFakeModels({
      leadScript: [
        {
          text: 'I need to know the budget.',
          toolCalls: [{ id: 'ask-1', name: 'ask_user', args: { question: 'What is the budget in euros?' } }],
        },
      ],
    });
    const runner = fixture.runner({ engine: testStore.engine(), models: models.resolve });
    const first = await runner.start({ mode: 'orchestrated', task: 'Plan the offsite' });
    expect(first.status).toBe('waiting');
    expect(first.waitingFor?.prompt).toBe('What is the budget in euros?');
    const engine = testStore.engine();
    const [summary] = await engine.listSessions({ status: ['waiting'] });
    expect(summary?.waitingFor?.prompt).toBe('What is the budget in euros?');
    const callsBefore = models.calls.length;

    await engine.respond(first.sessionId, summary?.waitingFor?.key ?? '', '5000', { answeredBy: 'ana' });
    const resumed = await fixture
      .runner({ engine: testStore.engine(), models: models.resolve })
      .resume(first.sessionId);
    expect(resumed.status).toBe('completed');
    // The turn that asked is not repeated: the next call is the one after the answer.
    expect(models.calls.length).toBe(callsBefore + 1);
    const state = await engine.readSession(first.sessionId);
    const toolMessage = state.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toBe('5000');
    expect(state.inputs[0]?.answer?.answeredBy).toBe('ana');
  });

  it('is offered with the workspace tools', async () => {
    const testStore = createTestStore();
    const models = createFakeModels({ leadScript: [] });
    const offered: string[] = [];
    const resolve: typeof models.resolve = (agent) => {
      const model = models.resolve(agent);
      return {
        ...model,
        generate(request) {
          offered.push(...(request.tools ?? []).map((tool) => tool.name));
          return model.generate(request);
        },
      };
    };
    const runner = fixture.runner({ engine: testStore.engine(), models: resolve });
    await runner.start({ mode: 'orchestrated', task: 'Look around' });
    expect(offered).toContain('ask_user');
    expect(offered).toContain('read_file');
  });
});
