// A run whose agent asks the user (ask_user): it ends waiting with the question, the session
// is listed as waiting, `conclave answer` records the answer with who gave it, and resuming
// hands the answer to the agent.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

describe('conclave answer', () => {
  const sandbox = sandboxFixture('all');

  it('ends a run waiting with the question, takes the answer, and resumes with it', async () => {
    const script = path.join(sandbox.root, 'ask-script.yaml');
    await writeFile(
      script,
      [
        '- agent: lead',
        '  text: "I need one thing from you."',
        '  tool_calls:',
        '    - { name: ask_user, args: { question: "Which city is the offsite in?" } }',
        '- agent: lead',
        '  text: "Done: the offsite is planned."',
        '',
      ].join('\n'),
    );
    const started = await sandbox.run(['--mode', 'orchestrated', '--script', script, 'Plan the offsite']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toContain('Question: Which city is the offsite in?');
    const id = /Session saved: ([0-9a-z]{22})/.exec(started.stdout)?.[1] ?? '';
    expect(started.stderr).toContain(`conclave answer ${id}`);

    const waiting = await sandbox.json<{ id: string; status: string }[]>([
      'sessions',
      'list',
      '--status',
      'waiting',
      '--json',
    ]);
    expect(waiting.map((item) => [item.id, item.status])).toEqual([[id, 'waiting']]);
    const shown = await sandbox.run(['sessions', 'show', id]);
    expect(shown.stdout).toContain('Which city is the offsite in?');

    const question = await sandbox.run(['answer', id]);
    expect(question.stdout.trim()).toBe('Which city is the offsite in?');
    // Resumed without a terminal before it is answered: nothing runs, the way to answer is printed.
    const early = await sandbox.run(['--resume', id]);
    expect(early.code, early.stderr).toBe(0);
    expect(early.stdout).toContain('Question: Which city is the offsite in?');
    expect(early.stderr).toContain('nothing was run');
    expect(early.stderr).toContain(`Answer with: conclave answer ${id} "…"  then: conclave --resume ${id} --yes`);
    const earlyJson = await sandbox.json<{ status: string; waitingFor: { prompt: string }; answerCommand: string }>([
      '--resume',
      id,
      '--json',
    ]);
    expect(earlyJson).toMatchObject({
      status: 'waiting',
      waitingFor: { prompt: 'Which city is the offsite in?' },
      answerCommand: `conclave answer ${id} "…"`,
    });
    expect((await sandbox.json<{ status: string }>(['sessions', 'show', id, '--json'])).status).toBe('waiting');
    const answered = await sandbox.run(['answer', id, 'Lisbon', '--by', 'ana']);
    expect(answered.code, answered.stderr).toBe(0);
    const again = await sandbox.run(['answer', id, 'Porto']);
    expect(again.code).toBe(64);
    // What is printed says the question, never the step's internal key, and works as printed.
    expect(answered.stderr).toContain('✓ Answered "Which city is the offsite in?"');
    expect(answered.stderr).not.toContain('ask_user');
    const shownAnswered = await sandbox.run(['sessions', 'show', id]);
    expect(shownAnswered.stdout).toContain('"Which city is the offsite in?" answered');
    expect(shownAnswered.stdout).not.toContain('ask_user"');
    const plan = await sandbox.run(['--resume', id, '--dry-run']);
    expect(plan.stdout).toContain('Answered since it stopped: "Which city is the offsite in?" → Lisbon (by ana)');
    const printed = /Continue it with: (conclave .+)$/m.exec(answered.stderr)?.[1] ?? '';
    expect(printed).toMatch(/^conclave --resume [0-9a-z]+ --yes$/);

    const resumed = await sandbox.run(printed.split(' ').slice(1));
    expect(resumed.code, resumed.stderr).toBe(0);
    const state = await sandbox.json<{ status: string; messages: { role: string; content: string }[] }>([
      'sessions',
      'show',
      id,
      '--json',
    ]);
    expect(state.status).toBe('completed');
    expect(state.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      'Lisbon',
    ]);
  });
});
