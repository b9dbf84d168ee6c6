// End-to-end: every combination of flags that docs/cli.md lists as refused is a usage error
// (64) saying why and what to type instead, before any session runs. The cases are read from
// the table in the docs, so the docs and the behaviour cannot drift apart.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const CLI_DOC = fileURLToPath(new URL('../../../../docs/cli.md', import.meta.url));

interface RefusedCombination {
  command: string;
  problem: string;
  instead: string;
}

/** The rows of the "Flags that do not go together" table. */
async function refusedCombinations(): Promise<RefusedCombination[]> {
  const doc = await readFile(CLI_DOC, 'utf8');
  const section = doc.split('### Flags that do not go together')[1]?.split('\n\n**')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `conclave'))
    .map((line) => {
      const cells = line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replaceAll('\\|', '|'));
      return { command: (cells[0] ?? '').replaceAll('`', ''), problem: cells[1] ?? '', instead: cells[2] ?? '' };
    });
}

/** A documented command line as arguments: words, and "quoted text" as one. */
function argumentsOf(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? '').slice(1);
}

beforeAll(() => assertBuilt());

describe('conclave: flags that do not go together', () => {
  const sandbox = sandboxFixture('all');
  let sessionId: string;
  beforeAll(async () => {
    const started = await sandbox.json<{ sessionId: string }>(['--max-rounds', '1', 'Plan the migration']);
    sessionId = started.sessionId;
  });

  it('lists the combinations in the docs', async () => {
    expect((await refusedCombinations()).length).toBeGreaterThanOrEqual(15);
  });

  it('refuses each documented combination with 64, why, and what to type instead; nothing runs', async () => {
    const before = await sandbox.json<unknown[]>(['sessions', 'list']);
    for (const row of await refusedCombinations()) {
      // The hint names the session the command named; without one it keeps the placeholder.
      const withId = (text: string) => (row.command.includes('<id>') ? text.replaceAll('<id>', sessionId) : text);
      const result = await sandbox.run(argumentsOf(withId(row.command)));
      const said = result.stderr.replace(/\s+/g, ' ');
      expect({ command: row.command, code: result.code }).toEqual({ command: row.command, code: 64 });
      expect(said, row.command).toContain(withId(row.problem).replace(/\s+/g, ' '));
      expect(said, row.command).toContain(`Instead: ${withId(row.instead).replace(/\s+/g, ' ')}`);
    }
    expect(await sandbox.json<unknown[]>(['sessions', 'list'])).toHaveLength(before.length);
  });
});

describe('conclave --resume --from-checkpoint on a completed session', () => {
  const sandbox = sandboxFixture('all');

  it('runs as a branch from that checkpoint, as the docs say, and leaves the session as it was', async () => {
    const { sessionId } = await sandbox.json<{ sessionId: string }>(['--max-rounds', '2', 'Plan the migration']);
    const checkpoints = await sandbox.json<{ seq: number; label: string | null }[]>(['checkpoints', 'list', sessionId]);
    const first = checkpoints.find((checkpoint) => checkpoint.label === 'round 1') ?? checkpoints[0];
    const before = await sandbox.json<{ messages: unknown[] }>(['sessions', 'show', sessionId]);
    const result = await sandbox.run(['--resume', sessionId, '--from-checkpoint', String(first?.seq)]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`runs as a branch of ${sessionId} from checkpoint ${first?.seq}`);
    const branchId = /Session saved: ([0-9a-z]{22})/.exec(result.stdout)?.[1] ?? '';
    const branch = await sandbox.json<{ parentId: string; status: string }>(['sessions', 'show', branchId]);
    expect(branch).toMatchObject({ parentId: sessionId, status: 'completed' });
    expect((await sandbox.json<{ messages: unknown[] }>(['sessions', 'show', sessionId])).messages).toEqual(
      before.messages,
    );
  });
});
