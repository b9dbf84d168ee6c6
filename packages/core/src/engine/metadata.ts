// How a person organizes sessions: a unique name, tags, a pin and an archive, journaled as
// `metadata-changed` events. The rules for names and tags, and the event a change makes.
import type { SessionMetadata } from '../journal/state.js';
import { type EventInput, isSessionId, type SessionSummary, UsageError } from '../spec/index.js';

/** What to change; a field left out stays as it is. */
export interface MetadataChange {
  /** The new name (null: remove it). Unique per store, compared without regard to case. */
  name?: string | null;
  addTags?: string[];
  removeTags?: string[];
  pinned?: boolean;
  archived?: boolean;
  /** Into the trash (left out of listings) or back out of it. */
  trashed?: boolean;
}

export const NO_METADATA: SessionMetadata = { name: null, tags: [], pinned: false, archivedAt: null, trashedAt: null };

const NAME_MAX_LENGTH = 80;
const TAG_PATTERN = /^[a-z0-9][a-z0-9._-]{0,39}$/;
const MAX_TAGS = 32;

/** The name as kept (trimmed), or a UsageError that says what a name may be. */
export function checkSessionName(name: string): string {
  const trimmed = name.trim();
  const problem =
    trimmed.length === 0
      ? 'it is empty'
      : trimmed.length > NAME_MAX_LENGTH
        ? `it is longer than ${NAME_MAX_LENGTH} characters`
        : /\p{Cc}/u.test(trimmed)
          ? 'it holds a control character'
          : /[/\\]/.test(trimmed)
            ? 'it holds a slash (it would be read as the path of an exported file)'
            : /^\d+$/.test(trimmed)
              ? 'it is a number (it would be read as a position in `sessions list`)'
              : isSessionId(trimmed.toLowerCase())
                ? 'it has the shape of a session id'
                : trimmed.startsWith('-')
                  ? 'it starts with "-" (it would be read as an option)'
                  : null;
  if (problem === null) return trimmed;
  throw new UsageError(`"${name}" cannot name a session: ${problem}.`, {
    hint: `A name is 1 to ${NAME_MAX_LENGTH} characters, not only digits, without slashes, e.g. "release notes".`,
  });
}

/** Tags as kept (lower case), or a UsageError naming the tag that cannot be one. */
export function checkTags(tags: readonly string[]): string[] {
  return tags.map((tag) => {
    const kept = tag.trim().toLowerCase();
    if (TAG_PATTERN.test(kept)) return kept;
    throw new UsageError(`"${tag}" cannot be a tag.`, {
      hint: 'A tag is 1 to 40 letters, digits, ".", "_" or "-", starting with a letter or a digit, e.g. work or q3-review.',
    });
  });
}

/** Whether `summary` carries `name` (names are compared without regard to case). */
export function hasName(summary: SessionSummary, name: string): boolean {
  return typeof summary.name === 'string' && summary.name.toLowerCase() === name.toLowerCase();
}

/** The event that makes `current` into what `change` asks, or null when nothing would change. */
export function metadataEvent(current: SessionMetadata, change: MetadataChange): EventInput | null {
  const name = change.name === undefined || change.name === null ? change.name : checkSessionName(change.name);
  const removed = new Set(checkTags(change.removeTags ?? []));
  const tags = [...new Set([...current.tags, ...checkTags(change.addTags ?? [])])]
    .filter((tag) => !removed.has(tag))
    .sort();
  if (tags.length > MAX_TAGS) {
    throw new UsageError(`A session keeps at most ${MAX_TAGS} tags; this would give it ${tags.length}.`, {
      hint: 'Remove some first: conclave sessions tag <id> -old-tag',
    });
  }
  const event: Extract<EventInput, { type: 'metadata-changed' }> = { type: 'metadata-changed' };
  if (name !== undefined && name !== current.name) event.name = name;
  if (tags.join('\n') !== current.tags.join('\n')) event.tags = tags;
  if (change.pinned !== undefined && change.pinned !== current.pinned) event.pinned = change.pinned;
  if (change.archived !== undefined && change.archived !== (current.archivedAt !== null)) {
    event.archived = change.archived;
  }
  if (change.trashed !== undefined && change.trashed !== Boolean(current.trashedAt)) event.trashed = change.trashed;
  return Object.keys(event).length > 1 ? event : null;
}
