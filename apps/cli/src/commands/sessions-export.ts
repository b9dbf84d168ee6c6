// `conclave sessions export <id> [--format json|md] [-o file]`.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { buildExportFile } from '../sessions/export-file.js';
import { lineageOf } from '../sessions/lineage.js';
import { resolveSession } from '../sessions/resolve-session.js';
import { renderMarkdown } from '../sessions/session-view.js';

const exportOptionsSchema = z.object({ format: z.enum(['json', 'md']).default('json'), output: z.string().optional() });

export async function exportSessionCommand(
  context: CliContext,
  input: { reference: string; options: Record<string, unknown> },
): Promise<number> {
  const options = exportOptionsSchema.parse(input.options);
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  let text: string;
  if (options.format === 'md') {
    const state = await engine.readSession(id);
    const { usage } = await lineageOf(engine, state);
    text = renderMarkdown(state, usage);
  } else {
    const events = [];
    for await (const event of engine.readEvents(id)) events.push(event);
    const file = await buildExportFile(engine.store, id, events, {
      now: context.environment.now(),
      version: context.environment.version,
    });
    text = `${JSON.stringify(file, null, 2)}\n`;
  }
  if (options.output) {
    const target = path.resolve(context.environment.cwd, options.output);
    // Sessions hold whatever the user discussed: private by default, like the store.
    writeFileSync(target, text, { mode: 0o600 });
    context.terminal.note(`Exported session ${id} to ${target}`);
  } else {
    context.environment.streams.stdout.write(text);
  }
  return 0;
}
