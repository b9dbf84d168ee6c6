// End to end in a real terminal (tmux): a session that waits for a person's answer. The
// agent's question is answered in the answer box during the run; `conclave --resume <id>` on
// a waiting session asks it first (Esc leaves it waiting, nothing run); and the picker
// answers it from the details pane (`a`) and resumes the run to its end. Runs the built CLI.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTmuxTerminal, tmuxAvailable } from './tmux-terminal.js';

describe.skipIf(!tmuxAvailable)('answering a waiting session in a real terminal', () => {
  const terminal = createTmuxTerminal('conclave-answer-e2e');
  const { root, workspace, tmux, waitForScreen, type, conclave, runPlain, listSessions, freshPane } = terminal;
  const script = path.join(root, 'ask-script.yaml');

  /** The session's state as `sessions show --json` gives it. */
  const show = (id: string) =>
    JSON.parse(runPlain(['sessions', 'show', id, '--json'])) as {
      status: string;
      messages: { role: string; content: string }[];
    };
  const toolAnswers = (id: string) =>
    show(id)
      .messages.filter((message) => message.role === 'tool')
      .map((message) => message.content);
  /** A run that asks and, without a terminal, ends waiting. */
  const startWaiting = (title: string) => {
    runPlain(['--mode', 'orchestrated', '--script', script, title]);
    const session = listSessions().find((each) => each.title === title);
    expect(session?.status).toBe('waiting');
    return session?.id ?? '';
  };

  /**
   * Types `answer` in the open answer box, sends it and waits for the run to end; the screen
   * at the end, and whether a resume prompt came in between (it never should: the answer is the
   * go-ahead).
   */
  const answerAndFinish = async (answer: string) => {
    type('-l', answer);
    await waitForScreen((text) => text.includes(`> ${answer}`), 'the typed answer');
    type('Enter');
    let prompted = false;
    const finished = await waitForScreen((text) => {
      if (text.includes('[Y/n]')) prompted = true;
      return /EXIT=\d+/.test(text);
    }, 'the run to finish');
    return { finished, prompted };
  };

  beforeAll(async () => {
    await terminal.open();
    writeFileSync(
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
  }, 120_000);

  afterAll(() => terminal.close());

  it('asks the agent’s question in the answer box during a run, and the run goes on', {
    timeout: 120_000,
    retry: 2,
  }, async () => {
    freshPane();
    const title = `Plan the offsite ${Date.now()}`;
    type(conclave(0, `--mode orchestrated --script ${script} "${title}"`), 'Enter');
    const asked = await waitForScreen((text) => text.includes('waits for your answer'), 'the answer box');
    expect(asked).toContain('? Which city is the offsite in?');
    const { finished, prompted } = await answerAndFinish('Lisbon');
    expect(finished).toContain('EXIT=0');
    expect(prompted).toBe(false);
    expect(finished).toContain('Done: the offsite is planned.');
    const session = listSessions().find((each) => each.title === title);
    expect(session?.status).toBe('completed');
    expect(toolAnswers(session?.id ?? '')).toEqual(['Lisbon']);
  });

  it('conclave --resume <id> on a waiting session asks the question first; Esc leaves it waiting', {
    timeout: 120_000,
    retry: 2,
  }, async () => {
    const id = startWaiting(`Offsite by resume ${Date.now()}`);
    freshPane();
    type(conclave(0, `--resume ${id}`), 'Enter');
    await waitForScreen((text) => text.includes('waits for your answer'), 'the answer box');
    type('Escape');
    await waitForScreen((text) => /EXIT=\d+/.test(text), 'the command to end');
    // Joined: long lines wrap in the pane.
    const left = tmux('capture-pane', '-p', '-J', '-t', 'e2e');
    expect(left).toContain('EXIT=0');
    expect(left).toContain('nothing was run');
    expect(left).toContain(`conclave answer ${id}`);
    expect(show(id).status).toBe('waiting');

    freshPane();
    type(conclave(0, `--resume ${id}`), 'Enter');
    await waitForScreen((text) => text.includes('waits for your answer'), 'the answer box');
    // An empty answer is never sent.
    type('Enter');
    await waitForScreen((text) => text.includes('Type an answer first'), 'the empty-answer notice');
    const { finished, prompted } = await answerAndFinish('Porto');
    expect(finished).toContain('EXIT=0');
    expect(prompted).toBe(false);
    expect(show(id).status).toBe('completed');
    expect(toolAnswers(id)).toEqual(['Porto']);
  });

  it('answers from the picker’s details pane and resumes the run to its end', {
    timeout: 120_000,
    retry: 2,
  }, async () => {
    const title = `Offsite by picker ${Date.now()}`;
    const id = startWaiting(title);
    freshPane();
    type(conclave(0, '--resume'), 'Enter');
    const picker = await waitForScreen(
      (text) => text.includes('Resume which session?') && text.includes('a answers it here'),
      'the picker with the waiting session selected',
    );
    // Waiting sessions come first, with their question.
    expect(picker).toMatch(/›\s+\?\s+Offsite by picker/);
    expect(picker).toContain('Which city is the offsite in?');
    type('a');
    await waitForScreen((text) => text.includes(`Answer ${id}`), 'the answer box');
    const { finished, prompted } = await answerAndFinish('Madeira');
    expect(finished).toContain('EXIT=0');
    expect(prompted).toBe(false);
    expect(finished).toContain('Done: the offsite is planned.');
    expect(show(id).status).toBe('completed');
    expect(toolAnswers(id)).toEqual(['Madeira']);
  });

  it('answers from the workflow picker (`run --resume` without an id) and resumes without a resume prompt', {
    timeout: 120_000,
    retry: 2,
  }, async () => {
    const promptFile = `offsite-${Date.now()}.prompt.md`;
    writeFileSync(path.join(workspace, promptFile), '---\ntools: [ask_user]\n---\nPlan the offsite.\n');
    runPlain(['run', promptFile, '--script', script]);
    const session = listSessions().find((each) => each.title === promptFile);
    expect(session?.status).toBe('waiting');
    const id = session?.id ?? '';
    freshPane();
    type(conclave(0, 'run --resume'), 'Enter');
    await waitForScreen(
      (text) => text.includes('Resume which workflow run?') && text.includes('a answers it here'),
      'the workflow picker with the waiting run selected',
    );
    type('a');
    await waitForScreen((text) => text.includes(`Answer ${id}`), 'the answer box');
    const { finished, prompted } = await answerAndFinish('Faro');
    expect(finished).toContain('EXIT=0');
    expect(prompted).toBe(false);
    expect(show(id).status).toBe('completed');
    expect(toolAnswers(id)).toEqual(['Faro']);
  });
});
