// What `sessions search --json` prints, in one place for the command and for its quick path
// before the command line (quick-search.ts).
import type { ContentHit, ContentIndex, KeptSummary } from '@resume/runner/search';

export const HUMAN_DEFAULT_LIMIT = 20;
export const JSON_DEFAULT_LIMIT = 100;

/** What a JSON listing says of a session's first hit. */
export function hitAsJson(hit: ContentHit) {
  return {
    field: hit.field,
    seq: hit.seq,
    round: hit.round,
    role: hit.role,
    speaker: hit.speaker,
    snippet: hit.snippet,
    matchStart: hit.matchStart,
    matchEnd: hit.matchEnd,
  };
}

/**
 * The hits with their sessions, numbered as `sessions list` numbers them (from the listing the
 * index keeps); `shownAs` gives a session's summary as a listing shows it (its live status).
 */
export async function searchHitsJson(
  index: ContentIndex,
  hits: readonly ContentHit[],
  shownAs: (summary: KeptSummary) => Promise<KeptSummary>,
): Promise<string> {
  const positions = index.positions(hits.map((hit) => hit.sessionId));
  const items = await Promise.all(
    hits.map(async (hit) => {
      const listed = index.summary(hit.sessionId);
      const summary = listed && (await shownAs(listed));
      return {
        index: positions.get(hit.sessionId) ?? 0,
        id: hit.sessionId,
        title: summary?.title ?? null,
        name: summary?.name ?? null,
        status: summary?.status ?? null,
        updatedAt: summary?.updatedAt ?? null,
        ...hitAsJson(hit),
      };
    }),
  );
  return JSON.stringify(items);
}
