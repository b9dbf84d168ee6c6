// The session row's columns a summary fills: the JSON itself and the columns listing
// filters and sorts on, written together by appends and repairs.
import type { SessionSummary } from '@resume/core/spec';

const unsafeTitleCharacters = /\u0000/g;

/** The session columns a summary fills, in the order of `summaryValues`, with their SQL array types. */
export const summaryColumns = [
  ['summary', 'json'],
  ['title', 'text'],
  ['mode', 'text'],
  ['status', 'text'],
  ['workspace_dir', 'text'],
  ['created_at', 'text'],
  ['updated_at', 'text'],
  ['parent_id', 'text'],
  ['last_seq', 'bigint'],
  ['message_count', 'bigint'],
  ['input_tokens', 'bigint'],
  ['output_tokens', 'bigint'],
  ['cost_usd', 'float8'],
] as const;

/** The session columns a summary fills, as `SET` assignments from parameter `$first` on (see `summaryValues`). */
export function summaryAssignments(first: number): string {
  return summaryColumns.map(([column], index) => `${column} = $${first + index}`).join(', ');
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
