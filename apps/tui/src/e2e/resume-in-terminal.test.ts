// End to end in a real terminal (tmux): a session interrupted with Ctrl+C after it wrote a
// file, the file edited by hand, then `conclave --resume` opens the picker, the search finds
// the session, the resume prompt is accepted and the conflict is resolved by restoring the
// snapshot. Runs the built CLI (built here when missing or older than the sources).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTmuxTerminal, tmuxAvailable } from './tmux-terminal.js';

describe.skipIf(!tmuxAvailable)('conclave --resume in a real terminal', () => {
  const terminal = createTmuxTerminal('conclave-tui-e2e');
  const { root, workspace, tmux, waitForScreen, type, conclave, listSessions, freshPane, settledPane } = terminal;

  beforeAll(async () => {
    await terminal.open();
    writeFileSync(
      path.join(root, 'script.yaml'),
      [
        '- agent: lead',
        '  tool_calls: [{ name: write_file, args: { path: notes.md, content: "original notes\\n" } }]',
        '- agent: lead',
        '  text: "The release notes are written."',
      ].join('\n'),
    );
  }, 120_000);

  afterAll(() => terminal.close());

  // A real terminal on a loaded CI machine can miss a frame: the whole story is retried from step 1.
  it('picks, searches, resumes and restores a changed file', { timeout: 120_000, retry: 2 }, async () => {
    // A retry starts from a clean slate: nothing left running in the pane, no file from before.
    const notes = path.join(workspace, 'notes.md');
    type('C-c');
    rmSync(notes, { force: true });
    tmux('clear-history', '-t', 'e2e');
    type('clear', 'Enter');

    // 1. Start an orchestrated run; interrupt it once the file is written.
    type(
      conclave(1500, `--mode orchestrated --script ${path.join(root, 'script.yaml')} "Write the release notes"`),
      'Enter',
    );
    for (let attempt = 0; attempt < 200 && !existsSync(notes); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(readFileSync(notes, 'utf8')).toBe('original notes\n');
    type('C-c');
    const interrupted = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the interrupted run to exit');
    expect(interrupted).toContain('EXIT=130');
    // The resume command is printed once, not by the live view and again by the CLI.
    expect(interrupted.match(/conclave --resume [0-9a-z]{22}/g) ?? []).toHaveLength(1);
    tmux('clear-history', '-t', 'e2e');
    type('clear', 'Enter');

    // 2. The user edits the file meanwhile.
    writeFileSync(notes, 'edited by hand\n');

    // 3. Resume through the picker.
    type(conclave(0, '--resume'), 'Enter');
    await waitForScreen(
      (text) => text.includes('Resume which session?') && text.includes('Write the release notes'),
      'the picker',
    );
    type('/', 'release');
    const searched = await waitForScreen((text) => text.includes('/ release'), 'the search box');
    expect(searched).toMatch(/›\s+‖\s+Write the release notes/);
    type('Enter');
    await waitForScreen((text) => text.includes('Enter select'), 'the search to be kept');
    type('Enter');

    // The resume prompt (when the CLI asks) comes before or after the conflict screen.
    const next = await waitForScreen(
      (text) => text.includes('[Y/n]') || text.includes('Files changed since'),
      'the resume prompt or the conflict screen',
    );
    if (next.includes('[Y/n]')) {
      expect(next).toContain('notes.md (modified)');
      type('y');
    }

    const conflicts = await waitForScreen((text) => text.includes('Files changed since'), 'the conflict screen');
    expect(conflicts).toMatch(/modified\s+notes\.md\s+→ keep current/);
    type('r');
    await waitForScreen((text) => text.includes('restore 1 from the snapshot (notes.md)'), 'the restore choice');
    type('Enter');

    let accepted = next.includes('[Y/n]');
    const finished = await waitForScreen((text) => {
      if (/EXIT=\d+/.test(text)) return true;
      // A resume prompt after the conflicts is accepted too.
      if (!accepted && text.includes('[Y/n]')) {
        accepted = true;
        type('y');
      }
      return false;
    }, 'the resumed run to finish');
    expect(finished).toContain('EXIT=0');
    // An interrupted session is never resumed in a terminal without the resume prompt.
    expect(accepted).toBe(true);
    expect(readFileSync(notes, 'utf8')).toBe('original notes\n');
    // The edit the restore replaced is kept with the session, and the way back is printed.
    expect(finished.replace(/\s+/g, ' ')).toContain(
      'notes.md: restored from the snapshot; your version is kept with the session: conclave files',
    );
  });

  it('names the chunk an interrupt stopped at, and a resume counts restored turns in one line', {
    timeout: 120_000,
    retry: 2,
  }, async () => {
    freshPane();
    const project = path.join(root, 'project.md');
    writeFileSync(
      project,
      Array.from(
        { length: 4 },
        (_, part) => `# Part ${part + 1}\n\n${'Budget and staffing details. '.repeat(100)}`,
      ).join('\n\n'),
    );
    type(conclave(1200, `--mode iterative --project ${project} "Review the project"`), 'Enter');
    // A loaded machine starts the CLI slowly: up to a minute for the first chunk.
    await waitForScreen((text) => /chunks 1 of \d/.test(text), 'the second chunk to start', 600);
    type('C-c');
    const interrupted = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the interrupted run to exit', 600);
    expect(interrupted).toContain('EXIT=130');
    expect(interrupted.replace(/\s+/g, ' ')).toMatch(/Interrupted; checkpoint saved at "chunk \d\/\d[^"]*"/);
    const id = /conclave --resume ([0-9a-z]{22})/.exec(interrupted)?.[1];
    freshPane();

    type(conclave(0, `--resume ${id}`), 'Enter');
    const asked = await waitForScreen((text) => text.includes('[Y/n]'), 'the resume prompt');
    // The run's status line is not left behind above the prompt.
    expect(asked).not.toContain('Ctrl+C saves a checkpoint');
    type('y');
    expect(await waitForScreen((text) => /EXIT=\d+/.test(text), 'the resumed run')).toContain('EXIT=0');
    const wholeRun = tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'e2e');
    expect(wholeRun.match(/turns? restored from the journal/g), wholeRun).toHaveLength(1);
  });

  it('continues a completed session from the picker with the follow-up typed in the TUI', {
    timeout: 120_000,
    retry: 2,
  }, async () => {
    freshPane();
    type(conclave(0, '"Evaluate the caching idea"'), 'Enter');
    expect(await waitForScreen((text) => /EXIT=\d+/.test(text), 'the first run')).toContain('EXIT=0');
    // The live view showed the judge's final solution as its last turn; it is not printed again.
    const wholeRun = tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'e2e');
    expect(wholeRun.match(/Final solution/g)?.length, wholeRun).toBe(1);
    const parent = listSessions().find((session) => session.title === 'Evaluate the caching idea');
    expect(parent?.status).toBe('completed');
    freshPane();

    type(conclave(0, '--continue'), 'Enter');
    await waitForScreen(
      (text) => text.includes('Continue which session?') && text.includes('Evaluate the caching idea'),
      'the picker',
    );
    type('/', 'caching');
    await waitForScreen((text) => text.includes('/ caching'), 'the search box');
    type('Enter');
    await waitForScreen((text) => text.includes('Enter select'), 'the search to be kept');
    type('Enter');
    await waitForScreen((text) => text.includes('Follow-up question:'), 'the follow-up text box');
    type('-l', 'What about cache invalidation?');
    await waitForScreen((text) => text.includes('What about cache invalidation?'), 'the typed question');
    type('Enter');
    const finished = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the continued run');
    expect(finished).toContain('EXIT=0');
    expect(finished).not.toContain('unsettled top-level await');
    const child = listSessions().find((session) => session.parentId === parent?.id);
    expect(child?.title).toBe('What about cache invalidation?');
    expect(child?.status).toBe('completed');
  });

  it('offers the models the provider lists when a recorded model is gone', { timeout: 120_000, retry: 2 }, async () => {
    freshPane();
    type(conclave(0, '--models gpt-4o "Pick the database"'), 'Enter');
    expect(await waitForScreen((text) => /EXIT=\d+/.test(text), 'the first run')).toContain('EXIT=0');
    const parent = listSessions().find((session) => session.title === 'Pick the database');
    freshPane();

    type(
      conclave(0, `--resume ${parent?.id} "What about backups?"`, 'CONCLAVE_SCRIPTED_MODELS=scripted,gpt-4.1,o3-mini'),
      'Enter',
    );
    const prompt = await waitForScreen(
      (text) => text.includes("Model 'gpt-4o' is not available"),
      'the model-unavailable screen',
    );
    expect(prompt).toContain("Use 'gpt-4.1' instead");
    expect(prompt).toContain("Use 'o3-mini' instead");
    type('1');
    const finished = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the continued run');
    expect(finished).toContain('EXIT=0');
    expect(listSessions().some((session) => session.parentId === parent?.id)).toBe(true);
  });

  it('asks before deleting a session in a terminal, naming the sessions that continue from it', {
    timeout: 120_000,
    retry: 2,
  }, async () => {
    // A pane cleared for certain: an EXIT= left from the test before would end the waits at once.
    await settledPane();
    type(conclave(0, '"Delete me later"'), 'Enter');
    expect(await waitForScreen((text) => /EXIT=\d+/.test(text), 'the run')).toContain('EXIT=0');
    const parent = listSessions().find((session) => session.title === 'Delete me later');
    await settledPane();
    type(conclave(0, `--resume ${parent?.id} "And then?"`), 'Enter');
    expect(await waitForScreen((text) => /EXIT=\d+/.test(text), 'the continued run')).toContain('EXIT=0');
    await settledPane();

    type(conclave(0, `sessions delete ${parent?.id}`), 'Enter');
    // The whole question, not a frame caught half drawn.
    const asked = await waitForScreen(
      (text) => text.includes('[y/N]') && text.includes('And then?'),
      'the delete question',
    );
    expect(asked).toContain('Move "Delete me later" to the trash?');
    expect(asked).toContain('will keep its parent link until the trash is emptied');
    expect(asked).toContain('And then?');
    type('Enter');
    expect(await waitForScreen((text) => /EXIT=\d+/.test(text), 'the declined delete')).toContain('Not deleted');
    expect(listSessions().some((session) => session.id === parent?.id)).toBe(true);
    await settledPane();

    type(conclave(0, `sessions delete ${parent?.id}`), 'Enter');
    await waitForScreen((text) => text.includes('[y/N]'), 'the delete question');
    type('y');
    expect(await waitForScreen((text) => /EXIT=\d+/.test(text), 'the delete')).toContain('EXIT=0');
    expect(listSessions().some((session) => session.id === parent?.id)).toBe(false);

    // -y and --yes answer the question before it is asked, as they do a resume's.
    const child = listSessions().find((session) => session.title === 'And then?');
    for (const [command, id] of [
      [`sessions delete ${child?.id} -y`, child?.id],
      [`--delete-session ${parent?.id} --yes`, parent?.id],
    ] as const) {
      await settledPane();
      type(conclave(0, command), 'Enter');
      const done = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the delete without a question');
      expect(done).toContain('EXIT=0');
      expect(done).not.toContain('[y/N]');
      expect(done).toContain(`session ${id}`);
    }
    expect(listSessions().some((session) => session.id === child?.id)).toBe(false);
  });
});
