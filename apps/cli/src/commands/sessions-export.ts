// `conclave sessions export <id> [--format json|md] [-o file] [--force]`.
import path from 'node:path';
import type { Engine, SessionState } from '@resume/core';
import { JournalCorruptedError, type JournalEvent } from '@resume/core/spec';
import { eventsLostInRepairOf } from '@resume/runner';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { STANDARD_OUTPUT, writeOutputFile } from '../output/output-file.js';
import { buildExportFile } from '../sessions/export-file.js';
import { lineageOf } from '../sessions/lineage.js';
import { resolveSession } from '../sessions/resolve-session.js';
import { describeEventsLost, renderMarkdown } from '../sessions/session-view.js';

/** `-o file` and `--force`, as every command that writes a file of a session takes them. */
export const outputOptionsSchema = z.object({
  output: z.string().optional(),
  force: z.boolean().default(false),
});

const exportOptionsSchema = outputOptionsSchema.extend({ format: z.enum(['json', 'md']).default('json') });

/** Writes `text` to the `-o` file (returned) or, without one or with `-`, to stdout (null). */
export function writeOutput(
  context: CliContext,
  text: string,
  options: z.infer<typeof outputOptionsSchema>,
): string | null {
  if (!options.output || options.output === STANDARD_OUTPUT) {
    context.environment.streams.stdout.write(text);
    return null;
  }
  const target = path.resolve(context.environment.cwd, options.output);
  writeOutputFile(target, text, { force: options.force });
  return target;
}

export async function exportSessionCommand(
  context: CliContext,
  input: { reference: string; options: Record<string, unknown> },
): Promise<number> {
  const options = exportOptionsSchema.parse(input.options);
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  // Read as every other reader reads it: a damaged session is refused (65, naming the repair), never exported short.
  const state = await engine.readSession(id);
  const lost = eventsLostInRepairOf(state);
  let text: string;
  if (options.format === 'md') {
    const { usage } = await lineageOf(engine, state);
    text = renderMarkdown(state, usage, lost);
  } else {
    const file = await buildExportFile(engine.store, id, await wholeJournal(engine, state), {
      now: context.environment.now(),
      version: context.environment.version,
      lostInRepair: lost,
    });
    text = `${JSON.stringify(file, null, 2)}\n`;
  }
  const losses = lost.map((entry) => `; ${describeEventsLost(entry)}`).join('');
  const target = writeOutput(context, text, options);
  if (target !== null) context.terminal.note(`Exported session ${id} to ${target}${losses}`);
  else if (losses) context.terminal.note(`Session ${id}${losses}`);
  return 0;
}

/** The journal up to the event the session was read at, refused unless every event is there. */
export async function wholeJournal(engine: Engine, state: SessionState): Promise<JournalEvent[]> {
  const id = state.header.id;
  const events: JournalEvent[] = [];
  for await (const event of engine.readEvents(id, { toSeq: state.lastSeq })) events.push(event);
  if (events.length !== state.lastSeq || events.at(-1)?.seq !== state.lastSeq)
    throw new JournalCorruptedError({
      sessionId: id,
      file: `${engine.store.location} (session ${id})`,
      offset: null,
      problem: `its journal gives ${events.length} of its ${state.lastSeq} events`,
    });
  return events;
}
