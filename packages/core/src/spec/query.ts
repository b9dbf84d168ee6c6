// Applies a SessionQuery's filters to one summary: shared by stores that filter in memory.
import type { SessionQuery, SessionSummary } from './summary.js';

export function matchesQuery(summary: SessionSummary, query: SessionQuery): boolean {
  if (query.status && !query.status.includes(summary.status)) return false;
  if (query.mode && !query.mode.includes(summary.mode)) return false;
  if (query.workspaceDir !== undefined && summary.workspaceDir !== query.workspaceDir) return false;
  if (query.parentId !== undefined && summary.parentId !== query.parentId) return false;
  if (query.since !== undefined && summary.updatedAt < query.since) return false;
  if (query.before !== undefined && summary.updatedAt >= query.before) return false;
  if (query.idPrefix !== undefined && !summary.id.startsWith(query.idPrefix)) return false;
  return true;
}
