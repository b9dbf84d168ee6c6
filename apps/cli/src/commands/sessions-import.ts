// `conclave sessions import <file> [--require-signed] [--key <file> | --passphrase … | --passphrase-file …]`:
// recreates an exported session under its own id, and says who signed it.
import { hostname } from 'node:os';
import path from 'node:path';
import { SessionExistsError } from '@resume/core/spec';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { importExportFile } from '../sessions/export-file.js';
import { describeOpened, noteSigner, openExportFile, requireSigner } from '../sessions/open-export.js';

const importOptionsSchema = z.object({
  requireSigned: z.boolean().default(false),
  key: z.string().optional(),
  passphrase: z.string().optional(),
  passphraseFile: z.string().optional(),
});

export async function importSessionCommand(
  context: CliContext,
  input: { file: string; options?: Record<string, unknown> },
): Promise<number> {
  const options = importOptionsSchema.parse(input.options ?? {});
  const file = path.resolve(context.environment.cwd, input.file);
  const opened = openExportFile(context, file, options);
  requireSigner(context, file, opened.signer, options.requireSigned);
  const data = opened.data;
  const store = await context.store();
  if (await store.getHeader(data.sessionId))
    throw new SessionExistsError(data.sessionId, {
      hint: `It is already in this store: conclave sessions show ${data.sessionId}`,
    });
  const id = await importExportFile(store, data, { pid: process.pid, host: hostname() });
  if (context.options.json)
    context.terminal.data(
      JSON.stringify({ imported: id, signature: opened.signer, encrypted: opened.encryption !== null }),
    );
  else context.terminal.out(`Imported session ${id} (${data.events.length} events), ${describeOpened(opened)}.`);
  noteSigner(context, opened);
  return 0;
}
