// `conclave sessions rename | tag | pin | unpin | archive | unarchive`: how a person organizes
// many sessions. Each is a `metadata-changed` event in the session's journal (engine.changeMetadata),
// so it travels with the session through every store, export and import.
import type { MetadataChange } from '@resume/core';
import { printableText, type SessionSummary, UsageError } from '@resume/core/spec';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { listItem } from '../sessions/list-item.js';
import { resolveSession } from '../sessions/resolve-session.js';

interface OrganizeInput {
  reference: string;
  options: Record<string, unknown>;
}

async function organize(
  context: CliContext,
  reference: string,
  change: MetadataChange,
  describe: (summary: SessionSummary) => string,
): Promise<SessionSummary> {
  const engine = await context.engine();
  const id = await resolveSession(context, reference);
  const summary = await engine.changeMetadata(id, change);
  if (context.options.json) context.terminal.data(JSON.stringify(listItem(summary, 0)));
  else context.terminal.out(describe(summary));
  return summary;
}

const named = (summary: SessionSummary) => `Session ${summary.id} "${printableText(summary.title, 'line')}"`;

export async function renameSessionCommand(
  context: CliContext,
  input: OrganizeInput & { name: string | undefined },
): Promise<number> {
  const { clear } = z.object({ clear: z.boolean().default(false) }).parse(input.options);
  if (clear === (input.name !== undefined)) {
    throw new UsageError(
      clear
        ? 'Give a name or --clear, not both.'
        : 'Give the new name (in quotes if it has spaces), or --clear to remove it.',
      { hint: 'conclave sessions rename 01jf3k "release notes"' },
    );
  }
  await organize(context, input.reference, { name: clear ? null : (input.name ?? null) }, (summary) =>
    summary.name
      ? `${named(summary)} is now named "${summary.name}": use the name wherever an id is accepted.`
      : `${named(summary)} has no name now.`,
  );
  return 0;
}

/** `+work -draft`: tags to add and to remove. */
export function parseTagChanges(words: readonly string[]): Pick<MetadataChange, 'addTags' | 'removeTags'> {
  const addTags: string[] = [];
  const removeTags: string[] = [];
  for (const word of words) {
    if (word.startsWith('+') && word.length > 1) addTags.push(word.slice(1));
    else if (word.startsWith('-') && word.length > 1 && !word.startsWith('--')) removeTags.push(word.slice(1));
    else
      throw new UsageError(`"${word}" is neither a tag to add nor one to remove.`, {
        hint: `Write +${word.replace(/^[-+]+/, '') || 'work'} to add a tag, -${word.replace(/^[-+]+/, '') || 'draft'} to remove one.`,
      });
  }
  if (addTags.length + removeTags.length === 0) {
    throw new UsageError('Say which tags to add (+tag) or remove (-tag).', {
      hint: 'conclave sessions tag 01jf3k +work -draft',
    });
  }
  return { addTags, removeTags };
}

export async function tagSessionCommand(
  context: CliContext,
  input: OrganizeInput & { words: string[] },
): Promise<number> {
  await organize(context, input.reference, parseTagChanges(input.words), (summary) => {
    const tags = [...(summary.tags ?? [])].sort();
    return `${named(summary)}: ${tags.length === 0 ? 'no tags' : `tags: ${tags.join(', ')}`}.`;
  });
  return 0;
}

/** `pin`, `unpin`, `archive`, `unarchive`: one mark set or cleared. */
export type SessionMark = { pinned: boolean } | { archived: boolean };

export async function markSessionCommand(
  context: CliContext,
  input: OrganizeInput & { mark: SessionMark },
): Promise<number> {
  const summary = await organize(context, input.reference, input.mark, (summary) =>
    'pinned' in input.mark
      ? summary.pinned
        ? `Pinned: ${named(summary)}. The picker shows it first and retention never deletes it.`
        : `Unpinned: ${named(summary)}.`
      : summary.archivedAt
        ? `Archived: ${named(summary)}. Listings leave it out; conclave sessions list --archived shows it.`
        : `Unarchived: ${named(summary)}. Listings show it again.`,
  );
  // A finished session is also compressed, as retention's archival does; reads stay transparent
  // and its next append (an unarchive, a continue) writes it plain again.
  const store = (await context.engine()).store;
  const finished = summary.status === 'completed' || summary.status === 'failed';
  if (summary.archivedAt && 'archived' in input.mark && finished && store.archive && !summary.archived) {
    await store.archive(summary.id).catch((error: unknown) => {
      context.terminal.note(
        `Not compressed (it stays archived): ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
  return 0;
}
