// Lineage: the chain of parents of a continued or branched session, and its usage and
// cost summed over the chain. A branch's journal starts with copies of its parent's
// events up to the branch point; those copied usage records are counted once, in the parent.

import type { Engine, SessionState, UsageRecord, UsageTotals } from '@resume/core';
import { type JsonValue, SessionNotFoundError } from '@resume/core/spec';
import { z } from 'zod';

/**
 * Header option of a branch or a follow-up: its parent's lineage usage when it was made, so the
 * lineage's usage survives the parent's deletion.
 */
export const PARENT_LINEAGE_USAGE_KEY = 'parentLineageUsage';

const usageTotalsSchema = z.object({
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative().nullable(),
  calls: z.number().int().nonnegative(),
});

/** The header option recording a parent's lineage usage. */
export function parentLineageRecord(total: UsageTotals): Record<string, JsonValue> {
  return { [PARENT_LINEAGE_USAGE_KEY]: { ...total } };
}

function recordedParentUsage(state: SessionState): UsageTotals | null {
  const parsed = usageTotalsSchema.safeParse(state.header.options[PARENT_LINEAGE_USAGE_KEY]);
  return parsed.success ? parsed.data : null;
}

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
  return (await readLineage(engine, id)).chain;
}

/** The lineage as far as it exists: `parentMissing` when the oldest one's parent was deleted. */
async function readLineage(
  engine: Pick<Engine, 'readSession'>,
  id: string,
): Promise<{ chain: LineageEntry[]; parentMissing: boolean }> {
  const chain: LineageEntry[] = [];
  const seen = new Set<string>();
  let current: string | null = id;
  while (current !== null && !seen.has(current) && chain.length < MAX_LINEAGE_DEPTH) {
    seen.add(current);
    const state: SessionState | null = await engine.readSession(current).catch((error: unknown) => {
      if (chain.length > 0 && SessionNotFoundError.isInstance(error)) return null;
      throw error;
    });
    if (state === null) return { chain: chain.reverse(), parentMissing: true };
    chain.push({
      id: state.header.id,
      title: state.title,
      parentId: state.header.parentId,
      branchPoint: state.header.branchPoint,
      state,
    });
    current = state.header.parentId;
  }
  return { chain: chain.reverse(), parentMissing: false };
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

/**
 * Usage per session of the lineage and in total, each call counted once. A deleted ancestor's
 * usage is still counted, as its child recorded it when it was made.
 */
export async function lineageUsage(engine: Pick<Engine, 'readSession'>, id: string): Promise<LineageUsage> {
  const { chain, parentMissing } = await readLineage(engine, id);
  const sessions: SessionUsage[] = chain.map((entry) => ({
    id: entry.id,
    title: entry.title,
    usage: sum(entry.state.usageRecords.filter((record) => !record.inherited)),
  }));
  const oldest = chain[0];
  const deleted = parentMissing && oldest ? recordedParentUsage(oldest.state) : null;
  return { sessions, total: sum([...sessions.map((session) => session.usage), ...(deleted ? [deleted] : [])]) };
}
