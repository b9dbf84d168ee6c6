// The session row's columns a summary fills: the JSON itself and the columns listing
// filters and sorts on, written together by appends and repairs.
import type { SessionSummary } from '@resume/core/spec';

const unsafeTitleCharacters = /\u0000/g;

/** The session columns a summary fills, as `SET` assignments from parameter `$first` on (see `summaryValues`). */
export function summaryAssignments(first: number): string {
  const columns = [
    'summary',
    'title',
    'mode',
    'status',
    'workspace_dir',
    'created_at',
    'updated_at',
    'parent_id',
    'last_seq',
    'message_count',
    'input_tokens',
    'output_tokens',
    'cost_usd',
  ];
  return columns.map((column, index) => `${column} = $${first + index}`).join(', ');
}

/** The values of `summaryAssignments`, in its order. */
export function summaryValues(summary: SessionSummary): unknown[] {
  return [
    JSON.stringify(summary),
    summary.title.replace(unsafeTitleCharacters, ''),
    summary.mode,
    summary.status,
    summary.workspaceDir,
    summary.createdAt,
    summary.updatedAt,
    summary.parentId,
    summary.lastSeq,
    summary.messageCount,
    summary.inputTokens,
    summary.outputTokens,
    summary.costUsd,
  ];
}
