// The session row's columns a summary fills: the JSON itself and the columns listing
// filters and sorts on, written together by appends and repairs.
import type { DataKey } from '@resume/core/encryption';
import type { SessionSummary } from '@resume/core/spec';
import { sealedJson, summaryPlace, workspaceToken } from './row-sealing.js';

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

/**
 * The values of `summaryAssignments`, in its order. Under `key` the summary is sealed, the title
 * left empty and the workspace an HMAC of it (listing by workspace compares the same HMAC).
 */
export function summaryValues(summary: SessionSummary, key: DataKey | null): unknown[] {
  return [
    sealedJson(key, summaryPlace(summary.id), summary),
    key ? '' : summary.title.replace(unsafeTitleCharacters, ''),
    summary.mode,
    summary.status,
    key && summary.workspaceDir !== null ? workspaceToken(key, summary.workspaceDir) : summary.workspaceDir,
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
