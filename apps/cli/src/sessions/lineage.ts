// A session's ancestors and the usage summed over them, for `sessions show` and exports.
// The sums come from the runner's lineageUsage; a parent deleted since (retention, by hand)
// ends the chain instead of failing the command, and its usage counts as recorded at the branch.
import type { Engine, SessionState } from '@resume/core';
import { SessionNotFoundError } from '@resume/core/spec';
import { lineageUsage } from '@resume/runner';
import type { LineageEntry, UsageView } from './session-view.js';

const MAX_DEPTH = 1000;

export async function lineageOf(
  engine: Engine,
  state: SessionState,
): Promise<{ lineage: LineageEntry[]; usage: UsageView }> {
  const lineage: LineageEntry[] = [];
  let parentId = state.header.parentId;
  while (parentId && lineage.length < MAX_DEPTH) {
    const parent = await engine.readSession(parentId).catch((error: unknown) => {
      if (SessionNotFoundError.isInstance(error)) return null;
      throw error;
    });
    lineage.push({ id: parentId, title: parent?.title ?? null, exists: parent !== null });
    if (!parent) break;
    parentId = parent.header.parentId;
  }
  if (lineage.length === 0) {
    const own = state.usage;
    return { lineage, usage: { inputTokens: own.inputTokens, outputTokens: own.outputTokens, costUsd: own.costUsd } };
  }
  const { total } = await lineageUsage(engine, state.header.id);
  return {
    lineage,
    usage: { inputTokens: total.inputTokens, outputTokens: total.outputTokens, costUsd: total.costUsd },
  };
}
