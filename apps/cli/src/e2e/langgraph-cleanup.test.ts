// `conclave sessions cleanup --langgraph-keep N` on LangGraph threads a graph wrote to the home:
// the dry run names the threads, their checkpoints and bytes; the cleanup prunes them.
import { readdir, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ResumeCheckpointSaver } from '@resume/langgraph';
import { createFsStore } from '@resume/storage-fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

/** Runs a graph that adds one message per step until the thread holds `steps` messages. */
async function writeThread(home: string, threadId: string, steps: number): Promise<string> {
  const store = createFsStore({ dir: home });
  const saver = new ResumeCheckpointSaver({ store });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('speak', (state) => ({ messages: [new AIMessage(`reply ${state.messages.length} ${'x'.repeat(400)}`)] }))
    .addEdge(START, 'speak')
    .addConditionalEdges('speak', (state) => (state.messages.length >= steps ? END : 'speak'))
    .compile({ checkpointer: saver });
  await graph.invoke(
    { messages: [new HumanMessage('start')] },
    { configurable: { thread_id: threadId }, recursionLimit: steps + 5, durability: 'sync' },
  );
  await saver.close();
  await store.close();
  return saver.sessionIdOf(threadId);
}

async function checkpointsOf(home: string, threadId: string) {
  const store = createFsStore({ dir: home });
  const saver = new ResumeCheckpointSaver({ store });
  try {
    const ids: string[] = [];
    const steps: Array<number | undefined> = [];
    for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) {
      ids.push(String(tuple.config.configurable?.checkpoint_id));
      steps.push(tuple.metadata?.step);
    }
    const latest = await saver.getTuple({ configurable: { thread_id: threadId } });
    return { ids, steps, messages: (latest?.checkpoint.channel_values.messages as unknown[] | undefined)?.length ?? 0 };
  } finally {
    await saver.close();
    await store.close();
  }
}

async function folderBytes(home: string, sessionId: string): Promise<number> {
  const folder = path.join(home, 'sessions', sessionId);
  let total = 0;
  for (const name of await readdir(folder)) {
    const info = await stat(path.join(folder, name));
    if (info.isFile()) total += info.size;
  }
  return total;
}

describe('conclave sessions cleanup --langgraph-keep', () => {
  const sandbox = sandboxFixture('each');

  it('says first what it would prune, then prunes the threads to their newest checkpoints', async () => {
    const long = await writeThread(sandbox.home, 'ticket-4711', 30);
    await writeThread(sandbox.home, 'short-one', 3);
    const before = await checkpointsOf(sandbox.home, 'ticket-4711');
    const bytesBefore = await folderBytes(sandbox.home, long);

    const dry = await sandbox.run(['sessions', 'cleanup', '--langgraph-keep', '5', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Would prune 1 LangGraph thread to the newest 5 checkpoints of each namespace:');
    expect(dry.stdout).toMatch(
      new RegExp(`ticket-4711\\s+${before.ids.length} -> 5 checkpoints\\s+about [\\d.]+ KB to free`),
    );
    expect(dry.stdout).toMatch(/Would free about [\d.]+ KB\./);
    expect(dry.stderr).toContain('1 other LangGraph thread already keeps no more than that.');
    expect(dry.stderr).toContain('Dry run: nothing was changed.');
    expect(await folderBytes(sandbox.home, long)).toBe(bytesBefore);

    const pruned = await sandbox.run(['sessions', 'cleanup', '--langgraph-keep', '5']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain('Pruned 1 LangGraph thread to the newest 5 checkpoints of each namespace:');
    expect(pruned.stdout).toMatch(
      new RegExp(`ticket-4711\\s+${before.ids.length} -> 5 checkpoints\\s+[\\d.]+ KB -> [\\d.]+ KB`),
    );
    expect(pruned.stdout).toMatch(/Freed [\d.]+ KB\./);
    expect(await folderBytes(sandbox.home, long)).toBeLessThan(bytesBefore / 2);
    const after = await checkpointsOf(sandbox.home, 'ticket-4711');
    expect(after).toEqual({ ids: before.ids.slice(0, 5), steps: before.steps.slice(0, 5), messages: 30 });

    const again = await sandbox.json<{ langgraph: { pruned: unknown[]; unchanged: number } }>([
      'sessions',
      'cleanup',
      '--langgraph-keep',
      '5',
    ]);
    expect(again.langgraph).toMatchObject({ pruned: [], unchanged: 2 });
  });

  it('skips a thread another process runs, changing nothing of it, and refuses a count that is not one; --help shows the flag', async () => {
    const sessionId = await writeThread(sandbox.home, 'busy', 12);
    const bytesBefore = await folderBytes(sandbox.home, sessionId);
    const store = createFsStore({ dir: sandbox.home });
    const lease = await store.acquireLease(sessionId, { holder: { pid: process.pid, host: hostname() } });
    try {
      const result = await sandbox.json<{
        langgraph: { pruned: unknown[]; skipped: Array<{ threadId: string; reason: string }> };
      }>(['sessions', 'cleanup', '--langgraph-keep', '2']);
      expect(result.langgraph.pruned).toEqual([]);
      expect(result.langgraph.skipped).toEqual([
        { threadId: 'busy', sessionId, reason: expect.stringContaining(`is being run by pid ${process.pid}`) },
      ]);
      expect(await folderBytes(sandbox.home, sessionId)).toBe(bytesBefore);
    } finally {
      await lease.release();
      await store.close();
    }

    const help = await sandbox.run(['sessions', 'cleanup', '--help']);
    expect(help.stdout).toContain('--langgraph-keep <n>');
    expect(help.stdout).toContain('conclave sessions cleanup --langgraph-keep 20 --dry-run');

    for (const wrong of ['0', 'all', '2.5']) {
      const refused = await sandbox.run(['sessions', 'cleanup', '--langgraph-keep', wrong]);
      expect(refused.code).toBe(64);
      expect(refused.stderr).toContain(`Invalid --langgraph-keep "${wrong}"`);
      expect(refused.stderr).toContain('--langgraph-keep 20');
    }
  });
});

describe('conclave on a LangGraph thread: its checkpoints', () => {
  const sandbox = sandboxFixture('all');

  it('counts the graph checkpoints in sessions show, and lists them in checkpoints list as the app does', async () => {
    const sessionId = await writeThread(sandbox.home, 'ticket-42', 3);
    const { ids, steps } = await checkpointsOf(sandbox.home, 'ticket-42');
    const listing = 'graph.getStateHistory({ configurable: { thread_id: "ticket-42" } })';

    const show = await sandbox.run(['sessions', 'show', sessionId]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(
      new RegExp(
        `checkpoints: ${ids.length} of the graph \\(all: conclave checkpoints list ${sessionId.slice(0, 6)}\\w*; `,
      ),
    );
    expect(show.stdout).toContain(`; in your app: ${listing})`);

    const checkpoints = await sandbox.run(['checkpoints', 'list', sessionId]);
    expect(checkpoints.code, checkpoints.stderr).toBe(0);
    expect(checkpoints.stdout).toContain(`LangGraph thread "ticket-42" (${sessionId}): ${ids.length} checkpoints`);
    const rows = checkpoints.stdout.split('\n').filter((line) => ids.some((id) => line.includes(id)));
    expect(rows.map((row) => ids.find((id) => row.includes(id)))).toEqual([...ids].reverse());
    expect(rows[0]).toMatch(/^\s+-1\s+input\s+.*\(root\)/);
    expect(checkpoints.stderr).toContain('graph.getState({ configurable: { thread_id: "ticket-42", checkpoint_id:');

    const listed = await sandbox.json<Array<Record<string, unknown>>>(['checkpoints', 'list', sessionId]);
    expect(listed.map((row) => row.checkpointId)).toEqual([...ids].reverse());
    expect(listed.map((row) => row.step)).toEqual([...steps].reverse());
    expect(listed[0]).toMatchObject({ label: null, namespace: '', parentCheckpointId: null, source: 'input' });
    expect(listed[1]).toMatchObject({ parentCheckpointId: ids.at(-1), source: 'loop' });
    expect(listed.every((row) => typeof row.seq === 'number' && typeof row.at === 'string')).toBe(true);
  });

  it('lists the newest 50 checkpoints of a long thread in a terminal, and the newest N with --limit', async () => {
    const sessionId = await writeThread(sandbox.home, 'ticket-long', 60);
    const { ids } = await checkpointsOf(sandbox.home, 'ticket-long');
    const oldestFirst = [...ids].reverse();
    const listedRows = (stdout: string) =>
      stdout
        .split('\n')
        .map((line) => oldestFirst.find((id) => line.includes(id)))
        .filter((id) => id !== undefined);

    const terminal = await sandbox.run(['checkpoints', 'list', sessionId]);
    expect(terminal.code, terminal.stderr).toBe(0);
    expect(terminal.stdout).toContain(`: ${ids.length} checkpoints, oldest first`);
    expect(listedRows(terminal.stdout)).toEqual(oldestFirst.slice(-50));
    expect(terminal.stderr).toContain(
      `… ${ids.length - 50} older, not shown: the newest 50 follow (use --limit ${ids.length}, or --json for all)`,
    );

    const three = await sandbox.run(['checkpoints', 'list', sessionId, '--limit', '3']);
    expect(listedRows(three.stdout)).toEqual(oldestFirst.slice(-3));
    expect(three.stderr).toContain(`… ${ids.length - 3} older, not shown: the newest 3 follow`);

    const everything = await sandbox.json<Array<{ checkpointId: string }>>(['checkpoints', 'list', sessionId]);
    expect(everything.map((row) => row.checkpointId)).toEqual(oldestFirst);
    const newest = await sandbox.json<Array<{ checkpointId: string }>>([
      'checkpoints',
      'list',
      sessionId,
      '--limit',
      '2',
    ]);
    expect(newest.map((row) => row.checkpointId)).toEqual(oldestFirst.slice(-2));

    const whole = await sandbox.run(['checkpoints', 'list', sessionId, '--limit', String(ids.length)]);
    expect(listedRows(whole.stdout)).toEqual(oldestFirst);
    expect(whole.stderr).not.toContain('older, not shown');

    for (const bad of ['0', 'ten']) {
      const refused = await sandbox.run(['checkpoints', 'list', sessionId, '--limit', bad]);
      expect(refused.code).toBe(64);
      expect(refused.stderr).toContain('Invalid --limit: give a whole number above 0 (--limit 10).');
    }
  });

  it('shows how many checkpoints a thread has in sessions list, uncut', async () => {
    const sessionId = await writeThread(sandbox.home, 'ticket-count', 12);
    const { ids } = await checkpointsOf(sandbox.home, 'ticket-count');
    const listed = await sandbox.run(['sessions', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const row = listed.stdout.split('\n').find((line) => line.includes(sessionId.slice(0, 10)));
    expect(row).toContain(`  ${ids.length} checkpoints  `);
    const header = listed.stdout.split('\n').find((line) => line.includes('PROGRESS')) ?? '';
    expect(row?.indexOf('$')).toBe(header.indexOf('COST'));
  });

  it('refuses to resume or follow up a thread before anything is set up, saying the app continues it', async () => {
    const sessionId = await writeThread(sandbox.home, 'ticket-7', 2);
    for (const args of [
      ['--resume', sessionId],
      ['--resume', sessionId, 'what now?'],
    ]) {
      const refused = await sandbox.run(args);
      expect(refused.code).toBe(65);
      expect(refused.stderr).toContain('it was not started by the runner (mode langgraph)');
      expect(refused.stderr).toContain('Continue it from your app: run the graph again with thread_id "ticket-7"');
      // Neither a provider chosen for a run that cannot happen, nor a resume that cannot work.
      expect(refused.stderr).not.toContain('Using the offline scripted provider');
      expect(refused.stderr).not.toContain('Finish it first');
    }
  });
});
