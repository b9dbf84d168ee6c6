// End-to-end: a branch's own usage leaves out the parent's calls copied into it, in every
// figure `sessions show` gives; the lineage's usage counts them once and survives the
// parent's deletion.
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

interface Usage {
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}
interface ShowJson {
  usage: Usage;
  lineageUsage: Usage;
  usageByAgent: Record<string, Usage>;
}

const sumOf = (usages: Usage[]) => ({
  inputTokens: usages.reduce((sum, usage) => sum + usage.inputTokens, 0),
  outputTokens: usages.reduce((sum, usage) => sum + usage.outputTokens, 0),
});

describe('conclave: usage of a branch', () => {
  const sandbox = sandboxFixture('all');

  it('counts only its own calls per agent, and keeps the lineage usage after the parent is deleted', async () => {
    const parent = await sandbox.json<{ sessionId: string }>(['--max-rounds', '3', 'Plan the database migration']);
    const branched = await sandbox.json<{ sessionId: string }>([
      '--branch-from',
      parent.sessionId,
      '--at-round',
      '1',
      'What if we target teams?',
    ]);
    const parentShow = await sandbox.json<ShowJson>(['sessions', 'show', parent.sessionId]);
    const branch = await sandbox.json<ShowJson>(['sessions', 'show', branched.sessionId]);
    expect(branch.usage.inputTokens).toBeGreaterThan(0);
    expect(sumOf(Object.values(branch.usageByAgent))).toEqual({
      inputTokens: branch.usage.inputTokens,
      outputTokens: branch.usage.outputTokens,
    });
    expect(branch.lineageUsage.inputTokens).toBe(parentShow.usage.inputTokens + branch.usage.inputTokens);

    const deleted = await sandbox.run(['sessions', 'delete', parent.sessionId, '--force', '--now']);
    expect(deleted.code, deleted.stderr).toBe(0);
    const orphan = await sandbox.json<ShowJson>(['sessions', 'show', branched.sessionId]);
    expect(orphan.usage).toEqual(branch.usage);
    expect(orphan.lineageUsage).toEqual(branch.lineageUsage);
  });
});
