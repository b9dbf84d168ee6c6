// `conclave sessions search "…"`: what sessions said, from the content index (no journal is
// scanned): the best hits first, each with its session, where it is (round and speaker, or the
// title, name, tags or task) and the words around it.
import { UsageError } from '@resume/core/spec';
import { parseQuery } from '@resume/runner/search';
import type { CliContext } from '../context/cli-context.js';
import { truncate } from '../output/format.js';
import { limitOption } from '../program/limit-option.js';
import { describeHitPlace, highlightedSnippet, openContentSearch, withLiveStatus } from '../sessions/content-search.js';
import { HUMAN_DEFAULT_LIMIT, JSON_DEFAULT_LIMIT, searchHitsJson } from '../sessions/search-json.js';
import { shortIdsAmong } from '../sessions/short-ids.js';

export async function searchSessionsCommand(
  context: CliContext,
  { words, options: rawOptions }: { words: string[]; options: Record<string, unknown> },
): Promise<number> {
  const limit = limitOption(rawOptions);
  const query = words.join(' ');
  if (parseQuery(query).length === 0) {
    throw new UsageError('Search for at least one word.', {
      hint: 'conclave sessions search "event sourcing" (a quoted phrase inside single quotes: \'"exact words"\').',
    });
  }
  const index = await openContentSearch(context);
  try {
    const json = context.options.json;
    const hits = await index.search(query, {
      limit: limit ?? (json ? JSON_DEFAULT_LIMIT : HUMAN_DEFAULT_LIMIT),
    });
    // Numbered as `sessions list` numbers them, from the listing the index keeps.
    const terminal = context.terminal;
    if (json) {
      terminal.data(await searchHitsJson(index, hits, (summary) => withLiveStatus(context, summary)));
      return 0;
    }
    const sessionIds = index.sessionIds();
    if (hits.length === 0) {
      terminal.note(
        `No session mentions "${query}" (${sessionIds.length} searched: titles, names, tags, tasks and messages).`,
      );
      return 0;
    }
    const shortId = shortIdsAmong(sessionIds);
    const positions = new Map(sessionIds.map((id, position) => [id, position]));
    for (const hit of hits) {
      const position = positions.get(hit.sessionId) ?? 0;
      const summary = index.summary(hit.sessionId);
      const title = summary?.name
        ? `${terminal.bold(truncate(summary.name, 40))}  ${truncate(summary.title, 40)}`
        : truncate(summary?.title ?? '', 60);
      terminal.out(
        `${String(position + 1).padStart(4)}  ${shortId(hit.sessionId).padEnd(10)}  ${terminal.dim(describeHitPlace(hit).padEnd(22))}  ${title}`,
      );
      terminal.out(`      ${highlightedSnippet(hit, terminal)}`);
    }
    if (hits.length === (limit ?? HUMAN_DEFAULT_LIMIT)) {
      terminal.note(terminal.dim(`The best ${hits.length} hits; --limit N shows more.`));
    }
    terminal.note(terminal.dim('Open one with: conclave sessions show <#>'));
    return 0;
  } finally {
    index.close();
  }
}
