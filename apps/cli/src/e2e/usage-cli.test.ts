// End-to-end: the cost ledger. `conclave usage` sums the model calls the journals recorded by
// day, model, tag and the rest, counts a branch's copy of its parent once, and keeps counting
// a parent deleted for good through its branches' copies.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? '';

interface UsageRow {
  day?: string;
  model?: string;
  provider?: string;
  tag?: string;
  mode?: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

interface UsageReport {
  since: string | null;
  by: string[];
  rows: UsageRow[];
  total: UsageRow;
  orphans: { branches: number; parents: number };
}

interface Shown {
  usage: { inputTokens: number; outputTokens: number; costUsd: number };
}

beforeAll(() => assertBuilt());

describe('conclave usage', () => {
  const sandbox = sandboxFixture('all');
  const priced = { env: { CONCLAVE_SCRIPTED_PRICE: '2.5,10' } };
  let first = '';
  let second = '';
  beforeAll(async () => {
    first = sessionIdFrom((await sandbox.run(['Should we move billing to event sourcing?'], priced)).stdout);
    second = sessionIdFrom((await sandbox.run(['Plan the opening of a tea shop'], priced)).stdout);
    expect(first).not.toBe('');
    expect(second).not.toBe('');
    expect((await sandbox.run(['sessions', 'tag', second, '+shop'])).code).toBe(0);
  });

  async function ownUsage(id: string) {
    return (await sandbox.json<Shown>(['sessions', 'show', id])).usage;
  }

  it('sums every session’s calls, by day and by model, as the sessions show them', async () => {
    const report = await sandbox.json<UsageReport>(['usage', '--by', 'day,model']);
    const [a, b] = [await ownUsage(first), await ownUsage(second)];
    expect(report.total.inputTokens).toBe(a.inputTokens + b.inputTokens);
    expect(report.total.outputTokens).toBe(a.outputTokens + b.outputTokens);
    expect(report.total.costUsd).toBeCloseTo(a.costUsd + b.costUsd, 9);
    expect(report.total.costUsd).toBeGreaterThan(0);
    expect(report.by).toEqual(['day', 'model']);
    expect(report.rows.length).toBeGreaterThan(0);
    for (const row of report.rows) {
      expect(row.day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(row.model).toBeTruthy();
    }
    expect(report.rows.reduce((sum, row) => sum + row.calls, 0)).toBe(report.total.calls);
  });

  it('counts a branch’s copy of its parent once, and the parent still after it is deleted for good', async () => {
    const before = await sandbox.json<UsageReport>(['usage']);
    const branched = await sandbox.run(['--branch-from', first, '--at-round', '1'], priced);
    expect(branched.code, branched.stderr).toBe(0);
    const branch = sessionIdFrom(branched.stdout);
    const branchOwn = await ownUsage(branch);
    const withBranch = await sandbox.json<UsageReport>(['usage']);
    expect(withBranch.total.costUsd).toBeCloseTo(before.total.costUsd + branchOwn.costUsd, 9);

    expect((await sandbox.run(['sessions', 'delete', first, '--now', '--force'])).code).toBe(0);
    const afterDelete = await sandbox.json<UsageReport>(['usage']);
    // What the parent spent up to the branch point is still counted, from the branch's copy.
    expect(afterDelete.total.costUsd).toBeGreaterThan((await ownUsage(second)).costUsd + branchOwn.costUsd + 1e-9);
    expect(afterDelete.total.costUsd).toBeLessThan(withBranch.total.costUsd);
    expect(afterDelete.orphans).toEqual({ branches: 1, parents: 1 });
    const human = await sandbox.run(['usage']);
    expect(human.stdout + human.stderr).toContain('deleted for good');
  });

  it('groups by tag and mode, limits to a period, and writes CSV', async () => {
    const byTag = await sandbox.json<UsageReport>(['usage', '--by', 'tag']);
    expect(byTag.rows.map((row) => row.tag).sort()).toEqual(['(none)', 'shop']);
    const byMode = await sandbox.json<UsageReport>(['usage', '--by', 'mode']);
    expect(byMode.rows.map((row) => row.mode)).toEqual(['discussion']);
    const future = await sandbox.json<UsageReport>(['usage', '--since', '2999-01-01']);
    expect(future.total.calls).toBe(0);
    const csv = await sandbox.run(['usage', '--by', 'model', '--csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...lines] = csv.stdout.trim().split('\n');
    expect(header).toBe('model,calls,input_tokens,output_tokens,cost_usd,unpriced_calls');
    expect(lines.length).toBeGreaterThan(0);
  });

  it('refuses a grouping it does not know, naming the ones it does', async () => {
    const result = await sandbox.run(['usage', '--by', 'colour']);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('day, week, month, model, provider, workspace, tag, mode');
  });
});

describe('daily and monthly budgets', () => {
  const sandbox = sandboxFixture('each');
  const priced = { env: { CONCLAVE_SCRIPTED_PRICE: '2.5,10' } };

  for (const [key, word] of [
    ['dailyCost', 'daily'],
    ['monthlyCost', 'monthly'],
  ] as const) {
    it(`stops a run at a checkpoint before a call past limits.${key}, and refuses the next run's first call`, async () => {
      await writeFile(path.join(sandbox.workspace, '.conclave.yaml'), `limits:\n  ${key}: 0.02\n`);
      const first = await sandbox.run(['Should we move billing to event sourcing?'], priced);
      expect(first.code, first.stderr).toBe(0);
      const stopped = await sandbox.run(['Plan the opening of a tea shop'], priced);
      expect(stopped.code, stopped.stderr).toBe(130);
      expect(stopped.stderr).toContain(`${word} budget`);
      expect(stopped.stderr).toContain(`limits.${key}`);
      const spent = await sandbox.json<UsageReport>(['usage']);
      expect(spent.total.costUsd).toBeLessThanOrEqual(0.02);
      const refused = await sandbox.run(['A third task'], priced);
      expect(refused.code).toBe(130);
      expect(refused.stderr).toContain(`${word} budget`);
    });
  }

  it('refuses a budget that is not an amount, naming the key and the file', async () => {
    await writeFile(path.join(sandbox.workspace, '.conclave.yaml'), 'limits:\n  dailyCost: lots\n');
    const result = await sandbox.run(['A task'], priced);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('limits.dailyCost');
    expect(result.stderr).toContain('.conclave.yaml');
  });
});
