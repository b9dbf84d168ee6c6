// How index entries become the summaries a listing returns, newest first: shared by the
// store's `list` and the quick listing (listing.ts), which must answer alike.
import type { SessionSummary } from '@resume/core/spec';

/** What a listing needs of an index entry. */
export interface ListedEntry {
  summary: SessionSummary;
  journalSize: number;
  archived: boolean;
  damage: { problem: string; file: string } | null;
}

/** The summary as listings show it: where the journal is, its size, and any damage found. */
export function listedSummary(entry: ListedEntry): SessionSummary {
  return {
    ...entry.summary,
    archived: entry.archived,
    bytes: entry.journalSize,
    ...(entry.damage ? { damage: entry.damage } : {}),
  };
}

/** Newest first: by `updatedAt`, then by id. */
export function newestFirst(a: SessionSummary, b: SessionSummary): number {
  return a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.updatedAt < b.updatedAt ? 1 : -1;
}
