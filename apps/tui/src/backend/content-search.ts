// Finding a query in message content and cutting a one-line snippet around it.
// Pure, so the picker's search is tested without a store.
import type { ContentMatch, ContentMessage } from './tui-backend.js';

const snippetRadius = 30;

/** The first message containing `query` (case-insensitive), as a snippet; null if none. */
export function findContentMatch(
  sessionId: string,
  messages: readonly ContentMessage[],
  query: string,
): ContentMatch | null {
  const needle = query.trim().toLowerCase();
  if (needle === '') return null;
  for (const message of messages) {
    const flat = message.content.replace(/\s+/g, ' ');
    const index = flat.toLowerCase().indexOf(needle);
    if (index === -1) continue;
    const start = Math.max(0, index - snippetRadius);
    const end = Math.min(flat.length, index + needle.length + snippetRadius);
    const prefix = start > 0 ? '…' : '';
    const suffix = end < flat.length ? '…' : '';
    const snippet = prefix + flat.slice(start, end) + suffix;
    const matchStart = prefix.length + (index - start);
    return { sessionId, snippet, matchStart, matchEnd: matchStart + needle.length, speaker: message.speaker };
  }
  return null;
}

/**
 * Searches sessions one by one through `loadContent`, yielding hits as they are found,
 * so the picker shows the first matches while the rest are still loading.
 */
export async function* searchContentWith(
  loadContent: (sessionId: string) => Promise<ContentMessage[]>,
  query: string,
  sessionIds: readonly string[],
  signal: AbortSignal,
): AsyncIterable<ContentMatch> {
  for (const sessionId of sessionIds) {
    if (signal.aborted) return;
    let messages: ContentMessage[];
    try {
      messages = await loadContent(sessionId);
    } catch {
      // A session that cannot be read (corrupted, deleted meanwhile) simply does not match;
      // the picker still lists it from its summary.
      continue;
    }
    if (signal.aborted) return;
    const match = findContentMatch(sessionId, messages, query);
    if (match) yield match;
  }
}
