// `parallel:` groups of a workflow: their steps really run at the same time, each is durable
// on its own (a resume runs only the unfinished ones), the transcript does not depend on which
// step finished first, a failing step lets the others finish, and interrupts, cost limits and
// requested checkpoints stop or mark the run only at the join.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import type { ChatModel } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../exit-codes/exit-codes.js';
import type { ModelResolver } from '../modes/mode-context.js';
import { ParallelGroupFailedError } from '../modes/parallel-group-failed-error.js';
import { runnerFixture } from '../testing/runner-fixture.js';
import { CostLimitError } from '../usage/cost-limit-error.js';
import type { RunEvent } from './run-event.js';
import { createRunner } from './runner.js';
import { createFakeModels, createTestStore, stepLabelIn, transcriptOf, until } from './test-kit.js';

async function untilAsync(predicate: () => Promise<boolean>): Promise<void> {
  for (let index = 0; index < 2000; index += 1) {
    if (await predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('condition never became true');
}

const fixture = runnerFixture({ name: 'parallel' });

/** Waits (up to 30 s, only to end a broken run) for a file another step creates. */
const waitFor = (file: string) => `for i in $(seq 1 600); do [ -f ${file} ] && break; sleep 0.05; done; [ -f ${file} ]`;

const lines = async (file: string) =>
  (await readFile(fixture.path(file), 'utf8').catch(() => '')).split('\n').filter(Boolean);

const spec = (steps: string) => `
name: parallel
agents:
  reviewer: { prompt: "You review." }
steps:
${steps}
`;

describe('parallel groups', () => {
  it('runs the steps of a group at the same time and joins them before the next step', async () => {
    // Each shell step waits for a file the other one creates: run one after the other, neither could pass.
    await writeFile(
      fixture.path('flow.yaml'),
      spec(`
  - id: checks
    parallel:
      - id: left
        shell: "touch left-ready; ${waitFor('right-ready')} && echo left-saw-right"
      - id: right
        shell: "touch right-ready; ${waitFor('left-ready')} && echo right-saw-left"
      - id: review
        agent: reviewer
        input: "Review the plan"
  - id: summary
    agent: reviewer
    input: "left={{ steps.left.output }} right={{ steps.right.output }} exit={{ steps.left.exit_code }} review={{ steps.review.output }}"
`),
    );
    const { engine } = createTestStore();
    const models = createFakeModels();
    const events: RunEvent[] = [];
    const runner = fixture.runner({ engine: engine(), models: models.resolve, onEvent: (event) => events.push(event) });
    const result = await runner.runWorkflow('flow.yaml');
    expect(result.status).toBe('completed');
    const state = await engine().readSession(result.sessionId);
    const review = state.messages.find((message) => message.tags?.includes('step:step[review]/reviewer'));
    expect(review?.content).toMatch(/^reviewer says /);
    expect(models.calls.at(-1)?.lastMessage).toBe(
      `left=left-saw-right\n right=right-saw-left\n exit=0 review=${review?.content}`,
    );
    expect(
      state.steps.map((step) => [step.key, step.branch]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual([
      ['step[left]/shell', 'checks/left'],
      ['step[review]/reviewer', 'checks/review'],
      ['step[right]/shell', 'checks/right'],
      ['step[summary]/reviewer', null],
    ]);
    // One checkpoint for the group, at its join; none while its steps ran. Labels name steps by id.
    expect(state.checkpoints.map((checkpoint) => checkpoint.label)).toEqual(['step checks, joined', 'step summary']);
    const finished = events.filter((event) => event.type === 'parallel' && event.finished);
    expect(finished).toEqual([
      {
        type: 'parallel',
        group: 'checks',
        number: 1,
        finished: true,
        branches: [
          { id: 'left', state: 'completed', detail: null },
          { id: 'right', state: 'completed', detail: null },
          { id: 'review', state: 'completed', detail: null },
        ],
      },
    ]);
  }, 60_000);

  it('runs at most max_concurrency steps at once, in spec order', async () => {
    await writeFile(
      fixture.path('flow.yaml'),
      spec(`
  - parallel:
      - { id: first, shell: "touch first-started; sleep 0.3; touch first-done" }
      - { id: second, shell: "[ -f first-done ] && echo after-first || echo during-first" }
    max_concurrency: 1
`),
    );
    const { engine } = createTestStore();
    const runner = fixture.runner({ engine: engine(), models: createFakeModels().resolve });
    const result = await runner.runWorkflow('flow.yaml');
    expect(result.status).toBe('completed');
    const state = await engine().readSession(result.sessionId);
    const second = state.steps.find((step) => step.key === 'step[second]/shell');
    expect(second?.output).toMatchObject({ stdoutTail: 'after-first\n' });
  });

  it('lets the other steps finish when one fails, fails naming it, and a resume runs only that one', async () => {
    await writeFile(
      fixture.path('flow.yaml'),
      spec(`
  - id: checks
    parallel:
      - id: flaky
        shell: "echo try >> flaky.log; [ -f fixed ] || exit 3"
        retry: { attempts: 2 }
      - id: slow
        shell: "while [ \\"$(wc -l < flaky.log 2>/dev/null || echo 0)\\" -lt 2 ]; do sleep 0.02; done; echo ran >> slow.log; echo slow-done"
  - agent: reviewer
    input: "{{ steps.flaky.exit_code }} {{ steps.slow.output }}"
`),
    );
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = () => fixture.runner({ engine: engine(), models: models.resolve });
    const failed = await runner().runWorkflow('flow.yaml');
    expect(failed.status).toBe('failed');
    expect(ParallelGroupFailedError.isInstance(failed.error)).toBe(true);
    const error = failed.error as ParallelGroupFailedError;
    expect(error.failed.map((branch) => branch.id)).toEqual(['flaky']);
    expect(error.failed[0]?.message).toContain('exited with code 3');
    expect(error.completed).toEqual(['slow']);
    expect(error.message).toContain(
      'Parallel step 1 (checks) failed: "flaky" failed after its retries; slow completed.',
    );
    expect(exitCodeFor(error)).toBe(1);
    // The slow step finished after the failure; nothing after the group ran.
    expect(await lines('flaky.log')).toHaveLength(2);
    expect(await lines('slow.log')).toHaveLength(1);
    expect(models.calls).toHaveLength(0);
    expect((await engine().readSession(failed.sessionId)).status).toBe('failed');

    const plan = await runner().plan(failed.sessionId);
    expect(plan.next).toBe('step 1 of 2, parallel: flaky failed (runs again), slow done');

    await writeFile(fixture.path('fixed'), '');
    const resumed = await runner().resume(failed.sessionId);
    expect(resumed.status).toBe('completed');
    expect(await lines('flaky.log')).toHaveLength(3);
    expect(await lines('slow.log')).toHaveLength(1);
    expect(models.calls.map((call) => call.lastMessage)).toEqual(['0 slow-done\n']);
  });

  it('names every failed step in the group\u2019s order, whichever failed first', async () => {
    await writeFile(
      fixture.path('flow.yaml'),
      spec(`
  - id: checks
    parallel:
      - { id: late, shell: "${waitFor('early-failed')}; exit 1" }
      - { id: early, shell: "touch early-failed; exit 2" }
      - { id: fine, shell: "echo fine" }
`),
    );
    const { engine } = createTestStore();
    const runner = fixture.runner({ engine: engine(), models: createFakeModels().resolve });
    const failed = await runner.runWorkflow('flow.yaml');
    expect(failed.status).toBe('failed');
    const error = failed.error as ParallelGroupFailedError;
    expect(error.failed.map((branch) => [branch.id, branch.message])).toEqual([
      ['late', expect.stringContaining('exited with code 1')],
      ['early', expect.stringContaining('exited with code 2')],
    ]);
    expect(error.message).toContain('"late", "early" failed after their retries; fine completed.');
  }, 60_000);

  it('resumes a group cut short by a crash: finished steps are not run again, the transcript is the uninterrupted one', async () => {
    const flow = spec(`
  - id: plan
    agent: reviewer
    input: "Plan"
  - id: checks
    parallel:
      - { id: count, shell: "echo ran >> count.log; echo counted" }
      - { id: critique, agent: reviewer, input: "Critique {{ steps.plan.output }}" }
      - { id: praise, agent: reviewer, input: "Praise {{ steps.plan.output }}" }
  - agent: reviewer
    input: "{{ steps.count.output }} / {{ steps.critique.output }} / {{ steps.praise.output }}"
`);
    await writeFile(fixture.path('flow.yaml'), flow);

    // The same workflow run without interruption, elsewhere.
    const reference = await mkdtemp(path.join(tmpdir(), 'conclave-parallel-reference-'));
    let expected: ReturnType<typeof transcriptOf>;
    try {
      await writeFile(path.join(reference, 'flow.yaml'), flow);
      const { engine } = createTestStore();
      const runner = createRunner({ engine: engine(), models: createFakeModels().resolve, workspaceDir: reference });
      const result = await runner.runWorkflow('flow.yaml');
      expect(result.status).toBe('completed');
      expected = transcriptOf((await engine().readSession(result.sessionId)).messages);
    } finally {
      await rm(reference, { recursive: true, force: true });
    }

    const { store, engine } = createTestStore();
    let hung = false;
    const crashing = createFakeModels({
      // The process dies while the critique is asked for (the praise and the count may finish first).
      intercept: (call) => (call.lastMessage.startsWith('Critique') ? 'crash' : undefined),
      onHang: () => {
        hung = true;
      },
    });
    const abandoned = fixture
      .runner({ engine: engine(), models: crashing.resolve })
      .runWorkflow('flow.yaml')
      .catch(() => null);
    await until(() => hung);
    const sessionId = (await engine().listSessions())[0]?.id ?? '';
    // The process dies once the shell step's completion is durable (the praise may be done too).
    await untilAsync(async () =>
      (await engine().readSession(sessionId)).steps.some(
        (step) => step.key === 'step[count]/shell' && step.status === 'completed',
      ),
    );
    store.killHolder(sessionId);
    void abandoned;

    const models = createFakeModels();
    const runner = fixture.runner({ engine: engine(), models: models.resolve });
    const plan = await runner.plan(sessionId);
    expect(plan.next).toContain('critique uncertain');
    const resumed = await runner.resume(sessionId);
    expect(resumed.status).toBe('completed');
    // The shell step ran once in all; the critique was asked again (an idempotent model
    // call that never answered), the plan not.
    expect(await lines('count.log')).toHaveLength(1);
    expect(models.calls.some((call) => call.lastMessage === 'Plan')).toBe(false);
    expect(models.calls.filter((call) => call.lastMessage.startsWith('Critique'))).toHaveLength(1);
    const state = await engine().readSession(sessionId);
    expect(transcriptOf(state.messages)).toEqual(expected);
  });

  it('an edited spec may add a step to a group that stopped, but not change one that completed', async () => {
    const original = spec(`
  - id: checks
    parallel:
      - { shell: "echo one >> ran.log" }
      - { id: failing, shell: "echo failing >> ran.log; [ -f fixed ]" }
`);
    await writeFile(fixture.path('flow.yaml'), original);
    const { engine } = createTestStore();
    const runner = () => fixture.runner({ engine: engine(), models: createFakeModels().resolve });
    const failed = await runner().runWorkflow('flow.yaml');
    expect(failed.status).toBe('failed');

    // A member without an id is known by its command: changing it after it completed would
    // lose what it did (blocked, as for any step).
    await writeFile(fixture.path('flow.yaml'), original.replace('echo one', 'echo uno'));
    const blocked = await runner().plan(failed.sessionId, { useEditedSpec: true });
    expect(blocked.changes.compatibility?.level).toBe('block');
    expect(blocked.changes.compatibility?.findings).toContainEqual(
      expect.objectContaining({ kind: 'step-changed', before: 'shell:echo one >> ran.log', after: null }),
    );

    // Adding a member is fine: it runs with the failed one, the completed one does not run again.
    await writeFile(
      fixture.path('flow.yaml'),
      original.replace(
        '      - { id: failing',
        '      - { id: added, shell: "echo added >> ran.log" }\n      - { id: failing',
      ),
    );
    await writeFile(fixture.path('fixed'), '');
    const resumed = await runner().resume(failed.sessionId, { useEditedSpec: true });
    expect(resumed.status).toBe('completed');
    expect((await lines('ran.log')).sort()).toEqual(['added', 'failing', 'failing', 'one']);
  });

  it('writes the same transcript whichever step of the group finishes first', async () => {
    await writeFile(
      fixture.path('flow.yaml'),
      spec(`
  - parallel:
      - { id: north, agent: reviewer, input: "Look north" }
      - { id: south, agent: reviewer, input: "Look south" }
  - agent: reviewer
    input: "{{ last_response }}"
`),
    );
    /** Models where the call whose input mentions `first` answers before the other one. */
    const finishingFirst = (first: string): ModelResolver => {
      const fake = createFakeModels();
      let answered: () => void = () => undefined;
      const firstAnswered = new Promise<void>((resolve) => {
        answered = resolve;
      });
      return (agent) => {
        const model = fake.resolve(agent);
        const gated: ChatModel = {
          ...model,
          async generate(request) {
            const last = request.messages.at(-1)?.content ?? '';
            if (last.startsWith('Look') && !last.includes(first)) await firstAnswered;
            const result = await model.generate(request);
            if (last.includes(first)) answered();
            return result;
          },
        };
        return gated;
      };
    };
    const runs = [];
    for (const first of ['north', 'south']) {
      const { engine } = createTestStore();
      const runner = fixture.runner({ engine: engine(), models: finishingFirst(first) });
      const result = await runner.runWorkflow('flow.yaml');
      expect(result.status).toBe('completed');
      runs.push(await engine().readSession(result.sessionId));
    }
    const [northFirst, southFirst] = runs;
    const completedSeq = (state: typeof northFirst, key: string) =>
      state?.steps.find((step) => step.key === key)?.completedSeq ?? 0;
    // The journal holds the two orders of completion...
    expect(completedSeq(northFirst, 'step[north]/reviewer')).toBeLessThan(
      completedSeq(northFirst, 'step[south]/reviewer'),
    );
    expect(completedSeq(southFirst, 'step[south]/reviewer')).toBeLessThan(
      completedSeq(southFirst, 'step[north]/reviewer'),
    );
    // ...and the same transcript, in the group's order.
    expect(transcriptOf(southFirst?.messages ?? [])).toEqual(transcriptOf(northFirst?.messages ?? []));
    expect(northFirst?.messages.map((message) => message.content.split(' says')[0])).toEqual([
      'Workflow parallel',
      'Look north',
      'reviewer',
      'Look south',
      'reviewer',
      expect.any(String),
      'reviewer',
    ]);
  });

  it('interrupts every running step of a group on Ctrl+C; a resume decides each uncertain one', async () => {
    await writeFile(
      fixture.path('flow.yaml'),
      spec(`
  - parallel:
      - { id: east, shell: "touch east-started; ${waitFor('release')}; echo east >> ran.log" }
      - { id: west, shell: "touch west-started; ${waitFor('release')}; echo west >> ran.log" }
`),
    );
    const { engine } = createTestStore();
    const events: RunEvent[] = [];
    const runner = fixture.runner({
      engine: engine(),
      models: createFakeModels().resolve,
      onEvent: (event) => events.push(event),
    });
    const running = runner.runWorkflow('flow.yaml');
    await until(() => existsSync(fixture.path('east-started')) && existsSync(fixture.path('west-started')));
    await runner.interrupt();
    const result = await running;
    expect(result.status).toBe('interrupted');
    const state = await engine().readSession(result.sessionId);
    expect(state.status).toBe('interrupted');
    expect(state.steps.map((step) => step.status)).toEqual(['started', 'started']);
    expect(await lines('ran.log')).toEqual([]);
    const last = events.filter((event) => event.type === 'parallel').at(-1);
    expect(last?.type === 'parallel' && last.branches.map((branch) => branch.state)).toEqual([
      'interrupted',
      'interrupted',
    ]);

    await writeFile(fixture.path('release'), '');
    const decided: string[] = [];
    const resumer = fixture.runner({
      engine: engine(),
      models: createFakeModels().resolve,
      decisions: {
        uncertainStep: (step) => {
          decided.push(step.key);
          return step.key === 'step[east]/shell' ? 'rerun' : 'skip';
        },
      },
    });
    const resumed = await resumer.resume(result.sessionId);
    expect(resumed.status).toBe('completed');
    expect(decided.sort()).toEqual(['step[east]/shell', 'step[west]/shell']);
    expect(await lines('ran.log')).toEqual(['east']);
  }, 60_000);

  it('honours a requested checkpoint at the join, not while the steps run', async () => {
    const flow = spec(`
  - parallel:
      - { id: one, shell: "${waitFor('go')}" }
      - { id: two, shell: "${waitFor('go')}" }
  - agent: reviewer
    input: "done"
`);
    await writeFile(fixture.path('flow.yaml'), flow);
    const { store, engine } = createTestStore();
    let requestSeen = false;
    const listRequests = store.listRequests?.bind(store);
    store.listRequests = async (sessionId) => {
      const requests = (await listRequests?.(sessionId)) ?? [];
      if (requests.length > 0 && !requestSeen) {
        requestSeen = true;
        // The writer has the request now; the steps may finish.
        await writeFile(fixture.path('go'), '');
      }
      return requests;
    };
    let sessionId = '';
    const runner = fixture.runner({
      engine: engine(),
      models: createFakeModels().resolve,
      requestPollMs: 1,
      onEvent: (event) => {
        if (event.type === 'run-started') sessionId = event.sessionId;
        // Another terminal asks while both steps of the group run.
        if (event.type === 'parallel' && event.branches.every((branch) => branch.state === 'running'))
          void store.postRequest?.(sessionId, {
            kind: 'checkpoint',
            label: 'mid-group',
            requestedBy: { pid: process.pid, host: hostname() },
          });
      },
    });
    const started = runner.runWorkflow('flow.yaml');
    const result = await started;
    expect(result.status).toBe('completed');
    const labels = (await engine().readSession(result.sessionId)).checkpoints.map((checkpoint) => checkpoint.label);
    expect(labels).toEqual([`${stepLabelIn(flow, 0)}, joined`, 'mid-group', stepLabelIn(flow, 1)]);
  }, 60_000);

  it('stops at the join when a step of the group would pass the cost limit; a resume runs only what is left', async () => {
    await writeFile(
      fixture.path('flow.yaml'),
      `
name: priced
agents:
  writer: { prompt: "You write.", model: gpt-4o }
steps:
  - parallel:
      - { id: one, agent: writer, input: "one" }
      - { id: two, agent: writer, input: "two" }
      - { id: three, agent: writer, input: "three" }
    max_concurrency: 1
  - agent: writer
    input: "{{ steps.one.output }}"
`,
    );
    const { engine } = createTestStore();
    // gpt-4o: each fake call reports 1000 in / 500 out tokens, $0.0075.
    const models = createFakeModels({ usage: { inputTokens: 1000, outputTokens: 500 } });
    const runner = (maxCostUsd: number) =>
      fixture.runner({ engine: engine(), models: models.resolve, limits: { maxCostUsd } });
    const stopped = await runner(0.02).runWorkflow('flow.yaml');
    expect(stopped.status).toBe('interrupted');
    expect(stopped.stopReason).toBe('cost-limit');
    expect(CostLimitError.isInstance(stopped.error)).toBe(true);
    expect((stopped.error as CostLimitError).details.stepKey).toBe('step[three]/writer');
    expect(models.calls.map((call) => call.lastMessage)).toEqual(['one', 'two']);
    const state = await engine().readSession(stopped.sessionId);
    expect(state.checkpoints.at(-1)?.label).toBe('cost limit');
    expect(state.messages.filter((message) => message.role === 'assistant')).toEqual([]);

    const resumed = await runner(1).resume(stopped.sessionId);
    expect(resumed.status).toBe('completed');
    expect(models.calls.map((call) => call.lastMessage)).toEqual(['one', 'two', 'three', expect.any(String)]);
  });
});
