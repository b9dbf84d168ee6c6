// A session's ancestors and the usage summed over them. A branch's journal already holds
// its parent's events up to the branch point, so only what the parent's own ancestors
// spent is added for a branch; a continuation adds its parent's whole lineage.
import type { Engine, SessionState } from '@resume/core';
import type { LineageEntry, UsageView } from './session-view.js';

const MAX_DEPTH = 100;

export async function lineageOf(
  engine: Engine,
  state: SessionState,
): Promise<{ lineage: LineageEntry[]; usage: UsageView }> {
  const chain: { state: SessionState | null; id: string; branch: boolean }[] = [];
  let current = state;
  for (let depth = 0; depth < MAX_DEPTH && current.header.parentId; depth += 1) {
    const parentId = current.header.parentId;
    const branch = current.header.branchPoint !== null;
    const parent = await engine.readSession(parentId).catch(() => null);
    chain.push({ state: parent, id: parentId, branch });
    if (!parent) break;
    current = parent;
  }
  // Sum from the oldest ancestor down: L(s) = own(s) + (branch ? L(p) - own(p) : L(p)).
  let lineageUsage: UsageView = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
  const states = [state, ...chain.map((entry) => entry.state)];
  for (let index = states.length - 1; index >= 0; index -= 1) {
    const each = states[index];
    if (!each) continue;
    const own = each.usage;
    const branch = index < chain.length ? (chain[index]?.branch ?? false) : false;
    const parent = states[index + 1];
    const base: UsageView = branch && parent ? subtract(lineageUsage, parent.usage) : lineageUsage;
    lineageUsage = add(base, own);
  }
  return {
    lineage: chain.map((entry) => ({ id: entry.id, title: entry.state?.title ?? null, exists: entry.state !== null })),
    usage: lineageUsage,
  };
}

function add(left: UsageView, right: UsageView): UsageView {
  return {
    inputTokens: left.inputTokens + right.inputTokens,
    outputTokens: left.outputTokens + right.outputTokens,
    costUsd: left.costUsd === null || right.costUsd === null ? null : left.costUsd + right.costUsd,
  };
}

function subtract(left: UsageView, right: UsageView): UsageView {
  return {
    inputTokens: Math.max(0, left.inputTokens - right.inputTokens),
    outputTokens: Math.max(0, left.outputTokens - right.outputTokens),
    costUsd: left.costUsd === null || right.costUsd === null ? null : Math.max(0, left.costUsd - right.costUsd),
  };
}
