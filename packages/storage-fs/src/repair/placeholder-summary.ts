// The summary a listing shows for a session whose journal has none to give (empty,
// missing or unreadable): what the header says, else what the id says.
import { type SessionHeader, type SessionSummary, sessionIdTime } from '@resume/core/spec';

export function summaryFromHeader(id: string, header: SessionHeader | null): SessionSummary {
  const createdAt = header?.createdAt ?? new Date(sessionIdTime(id)).toISOString();
  return {
    id,
    title: header?.title ?? '(unreadable session)',
    mode: header?.mode ?? 'custom',
    status: 'interrupted',
    workspaceDir: header?.workspaceDir ?? null,
    createdAt,
    updatedAt: createdAt,
    parentId: header?.parentId ?? null,
    branchPoint: header?.branchPoint ?? null,
    lastSeq: 0,
    messageCount: 0,
    progress: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
    task: null,
    archived: false,
    bytes: null,
  };
}
