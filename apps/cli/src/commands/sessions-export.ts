// `conclave sessions export <id> [--format json|md] [-o file]`.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statfsSync, writeSync } from 'node:fs';
import path from 'node:path';
import { StoreFullError } from '@resume/core/spec';
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
    writeAtomically(target, text);
    context.terminal.note(`Exported session ${id} to ${target}`);
  } else {
    context.environment.streams.stdout.write(text);
  }
  return 0;
}

/**
 * Written to a temporary file beside the target, synced and renamed over it: an export cut
 * short (a full disk, Ctrl+C) never leaves a half file, nor replaces a good one with it.
 * Sessions hold whatever the user discussed: private by default, like the store.
 */
function writeAtomically(target: string, text: string): void {
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${randomBytes(6).toString('hex')}`);
  try {
    const descriptor = openSync(temporary, 'wx', 0o600);
    try {
      const bytes = Buffer.from(text, 'utf8');
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(descriptor, bytes, offset);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      const free = (() => {
        try {
          const stats = statfsSync(path.dirname(target));
          return stats.bavail * stats.bsize;
        } catch {
          return null;
        }
      })();
      throw new StoreFullError(
        { path: target, location: path.dirname(target), freeBytes: free, quota: code === 'EDQUOT' },
        { cause: error },
      );
    }
    throw error;
  }
}
