// `conclave sessions import <file>`: recreates an exported session under its own id.
import { hostname } from 'node:os';
import path from 'node:path';
import { SessionExistsError } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';
import { importExportFile, integrityNote, parseExportFile, readExportFile } from '../sessions/export-file.js';

export async function importSessionCommand(context: CliContext, input: { file: string }): Promise<number> {
  const file = path.resolve(context.environment.cwd, input.file);
  const data = parseExportFile(readExportFile(file), file);
  const store = await context.store();
  if (await store.getHeader(data.sessionId))
    throw new SessionExistsError(data.sessionId, {
      hint: `It is already in this store: conclave sessions show ${data.sessionId}`,
    });
  const id = await importExportFile(store, data, { pid: process.pid, host: hostname() });
  if (context.options.json) context.terminal.data(JSON.stringify({ imported: id }));
  else context.terminal.out(`Imported session ${id} (${data.events.length} events).`);
  context.terminal.note(integrityNote(data));
  return 0;
}
