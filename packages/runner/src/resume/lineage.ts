// Lineage: the chain of parents of a continued or branched session, and its usage and
// cost summed over the chain. A branch's journal starts with copies of its parent's
// events up to the branch point; those copied usage records are counted once, in the parent.

import type { Engine, SessionState, UsageRecord, UsageTotals } from '@resume/core';

export interface LineageEntry {
  id: string;
  title: string;
  parentId: string | null;
  branchPoint: number | null;
  state: SessionState;
}

/** Guards against a damaged store whose parent links form a loop. */
const MAX_LINEAGE_DEPTH = 1000;

/** The session and its ancestors, oldest first (the root, …, the parent, the session itself). */
export async function lineageOf(engine: Pick<Engine, 'readSession'>, id: string): Promise<LineageEntry[]> {
  const chain: LineageEntry[] = [];
  const seen = new Set<string>();
  let current: string | null = id;
  while (current !== null && !seen.has(current) && chain.length < MAX_LINEAGE_DEPTH) {
    seen.add(current);
    const state = await engine.readSession(current);
    chain.push({
      id: state.header.id,
      title: state.title,
      parentId: state.header.parentId,
      branchPoint: state.header.branchPoint,
      state,
    });
    current = state.header.parentId;
  }
  return chain.reverse();
}

export interface SessionUsage {
  id: string;
  title: string;
  /** Usage recorded by this session itself (copies inherited at a branch point excluded). */
  usage: UsageTotals;
}

export interface LineageUsage {
  sessions: SessionUsage[];
  /** Summed over the lineage; costUsd is null as soon as one call's cost is unknown. */
  total: UsageTotals;
}

function sum(records: readonly Pick<UsageRecord, 'inputTokens' | 'outputTokens' | 'costUsd' | 'calls'>[]): UsageTotals {
  const totals: UsageTotals = { inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 0 };
  for (const record of records) {
    totals.inputTokens += record.inputTokens;
    totals.outputTokens += record.outputTokens;
    totals.calls += record.calls;
    totals.costUsd = totals.costUsd === null || record.costUsd === null ? null : totals.costUsd + record.costUsd;
  }
  return totals;
}

/** Usage per session of the lineage and in total, each call counted once. */
export async function lineageUsage(engine: Pick<Engine, 'readSession'>, id: string): Promise<LineageUsage> {
  const chain = await lineageOf(engine, id);
  const sessions: SessionUsage[] = chain.map((entry, index) => {
    const parent = index > 0 ? chain[index - 1] : undefined;
    let inherited = 0;
    if (parent !== undefined && entry.branchPoint !== null) {
      const point = entry.branchPoint;
      inherited = parent.state.usageRecords.filter((record) => record.seq <= point).length;
    }
    return { id: entry.id, title: entry.title, usage: sum(entry.state.usageRecords.slice(inherited)) };
  });
  return { sessions, total: sum(sessions.map((session) => session.usage)) };
}
