// `conclave sessions delete <id>` (and `--delete-session`).
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { resolveSession } from '../sessions/resolve-session.js';

export async function deleteSessionCommand(
  context: CliContext,
  input: { reference: string; options: Record<string, unknown> },
): Promise<number> {
  const options = z.object({ force: z.boolean().default(false) }).parse(input.options);
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  const summary = await engine.store.getSummary(id);
  await engine.deleteSession(id, { force: options.force });
  if (context.options.json) context.terminal.out(JSON.stringify({ deleted: [id] }));
  else context.terminal.out(`Deleted session ${id}${summary ? ` "${summary.title}"` : ''}.`);
  return 0;
}
