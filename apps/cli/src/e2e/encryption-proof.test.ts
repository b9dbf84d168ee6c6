// The proof of encryption at rest, on both stores: a discussion, a workflow (with a shell step's
// output) and a LangGraph thread run with `encryption: on`, on the file store and on PostgreSQL
// (a throw-away local server); then the home's files, `pg_dump --data-only` of the database and
// an export of every session are searched for the task, every message and every tool output.
// None may be found. Exports are encrypted with a passphrase: a plain export is the session in
// the clear by design (it is what you hand to someone), so only an encrypted one proves anything.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { createKeyring, type Keyring } from '@resume/core/encryption';
import type { SessionStore } from '@resume/core/spec';
import { ResumeCheckpointSaver } from '@resume/langgraph';
import { createFsStore } from '@resume/storage-fs';
import { createPostgresStore } from '@resume/storage-postgres';
import {
  announceSkip,
  dumpData,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const postgres = findPostgres();
const skipped = announceSkip(postgres);

const task = 'Evaluate my idea: a greenhouse ledger for the Kestrel orchard cooperative';
const flowInput = 'Draft the velvet-anchor migration plan';
const toolOutput = 'tool-output-saffron-lighthouse-4417';
const graphInput = 'graph input: the juniper-compass survey';
const graphOutput = 'graph node output: tangerine-obelisk verdict';
const flow = [
  'name: proof-flow',
  'agents:',
  '  writer: { prompt: "You write." }',
  'steps:',
  '  - agent: writer',
  `    input: "${flowInput}"`,
  `  - shell: "echo ${toolOutput}"`,
  '',
].join('\n');

interface ShowJson {
  messages: { content: string }[];
}

const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (left, right) => [...left, ...right], default: () => [] }),
});

/** Runs a two-node LangGraph graph on a thread of `store`, checkpointed by Conclave. */
async function runGraphThread(store: SessionStore): Promise<void> {
  const saver = new ResumeCheckpointSaver({ store, title: () => graphInput });
  const graph = new StateGraph(State)
    .addNode('think', () => ({ log: [graphOutput] }))
    .addNode('answer', () => ({ log: [`${graphOutput}, confirmed`] }))
    .addEdge(START, 'think')
    .addEdge('think', 'answer')
    .addEdge('answer', END)
    .compile({ checkpointer: saver });
  const result = await graph.invoke(
    { log: [graphInput] },
    { configurable: { thread_id: 'proof-thread' }, durability: 'sync' as const },
  );
  expect(result.log).toEqual([graphInput, graphOutput, `${graphOutput}, confirmed`]);
  await saver.close();
  await store.close();
}

describe(`encryption at rest, proven on both stores ${skipped}`, () => {
  const sandbox = sandboxFixture();
  let cluster: PostgresCluster | null = null;
  beforeAll(async () => {
    assertBuilt();
    if (postgres.available) cluster = await startPostgresCluster(postgres);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  /** Every file of the home, as text. */
  const homeText = async (): Promise<string> => {
    const entries = await readdir(sandbox.home, { withFileTypes: true, recursive: true });
    const files = entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
    return (await Promise.all(files.map((file) => readFile(file, 'latin1')))).join('\n');
  };

  /** Makes a data key, turns encryption on and returns a keyring holding the key, as the CLI loads it. */
  const encryptedHome = async (): Promise<Keyring> => {
    const init = await sandbox.run(['keys', 'init']);
    expect(init.code, init.stderr).toBe(0);
    const keyId = /Created data key ([0-9a-f]{12})/.exec(init.stdout)?.[1] ?? '';
    const keyText = await readFile(path.join(sandbox.home, 'keys', 'data', `${keyId}.key`), 'utf8');
    await writeFile(path.join(sandbox.home, 'config.yaml'), 'encryption: on\n');
    return createKeyring({ keys: { [keyId]: keyText }, current: keyId });
  };

  /** Runs everything, then searches the home, the database (`dump`) and encrypted exports. */
  const prove = async (
    env: Record<string, string>,
    openStore: (keyring: Keyring) => SessionStore,
    dump: () => Promise<string>,
  ) => {
    const keyring = await encryptedHome();
    const discussion = await sandbox.run([task], { env });
    expect(discussion.code, discussion.stderr).toBe(0);
    await writeFile(path.join(sandbox.workspace, 'flow.yaml'), flow);
    const workflow = await sandbox.run(['run', 'flow.yaml'], { env });
    expect(workflow.code, workflow.stderr).toBe(0);
    await runGraphThread(openStore(keyring));

    const listed = await sandbox.json<Array<{ id: string; title: string; mode: string }>>(['sessions', 'list'], {
      env,
    });
    expect(listed.map((session) => session.mode)).toContain('langgraph');
    expect(listed).toHaveLength(3);
    expect(listed.map((session) => session.title)).toContain(graphInput);

    const texts = [task, flowInput, toolOutput, graphInput, graphOutput];
    for (const session of listed) {
      const shown = await sandbox.json<ShowJson>(['sessions', 'show', session.id], { env });
      texts.push(...shown.messages.map((message) => message.content.slice(0, 60)).filter((text) => text.length >= 12));
    }
    expect(texts.length).toBeGreaterThan(10);
    expect(texts.join('\n')).toContain(toolOutput);

    const secret = path.join(sandbox.root, 'passphrase.txt');
    await writeFile(secret, 'correct horse battery staple\n');
    const exports: string[] = [];
    for (const session of listed) {
      const file = path.join(sandbox.root, `${session.id}.json`);
      const exported = await sandbox.run(['sessions', 'export', session.id, '-o', file, '--passphrase-file', secret], {
        env,
      });
      expect(exported.code, exported.stderr).toBe(0);
      exports.push(await readFile(file, 'latin1'));
    }

    const places = { home: await homeText(), database: await dump(), exports: exports.join('\n') };
    for (const text of texts) {
      for (const [place, content] of Object.entries(places)) {
        expect({ text, place, found: content.includes(text) }).toEqual({ text, place, found: false });
      }
    }
  };

  it('the file store: no task, message or tool output in the home or an export', async () => {
    await prove(
      {},
      (keyring) => createFsStore({ dir: sandbox.home, encryption: keyring }),
      async () => '',
    );
  });

  it.skipIf(!postgres.available)(
    'PostgreSQL: no task, message or tool output in the home, pg_dump or an export',
    async () => {
      const url = cluster?.url ?? '';
      await prove(
        { CONCLAVE_STORE_URL: url },
        (keyring) => createPostgresStore({ connectionString: url, encryption: keyring }),
        () => dumpData(postgres, url),
      );
    },
  );
});
