// `conclave sessions export <id> [--format json|md] [-o file] [--force]
// [--encrypt-for <public key file|trusted name> | --passphrase <text> | --passphrase-file <file> | --plain]`.
// A json bundle is signed with this home's key when it has one. A session encrypted at rest is
// exported encrypted for this home's own key unless the user chooses otherwise: in the clear
// only with `--plain`.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Engine, SessionState } from '@resume/core';
import { JournalCorruptedError, type JournalEvent, type SessionStore, UsageError } from '@resume/core/spec';
import { eventsLostInRepairOf } from '@resume/runner';
import type { FsStore } from '@resume/storage-fs';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { exposureOf, fingerprintOf, readHomeKey, readPublicKeyFile, signingKeyFile } from '../keys/home-key.js';
import { listTrustedKeys } from '../keys/trusted-keys.js';
import { STANDARD_OUTPUT, writeOutputFile } from '../output/output-file.js';
import { encryptExport, type Sealing } from '../sessions/bundle-encryption.js';
import { buildExportFile } from '../sessions/export-file.js';
import { lineageOf } from '../sessions/lineage.js';
import { readPassphrase } from '../sessions/open-export.js';
import { resolveSession } from '../sessions/resolve-session.js';
import { describeEventsLost, renderMarkdown } from '../sessions/session-view.js';

/** `-o file` and `--force`, as every command that writes a file of a session takes them. */
export const outputOptionsSchema = z.object({
  output: z.string().optional(),
  force: z.boolean().default(false),
});

const exportOptionsSchema = outputOptionsSchema.extend({
  format: z.enum(['json', 'md']).default('json'),
  encryptFor: z.string().optional(),
  passphrase: z.string().optional(),
  passphraseFile: z.string().optional(),
  plain: z.boolean().default(false),
});
type ExportOptions = z.infer<typeof exportOptionsSchema>;

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
  // Checked before the session is read: a wrong key file or passphrase writes nothing.
  const sealing = sealingOf(context, options);
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  // Read as every other reader reads it: a damaged session is refused (65, naming the repair), never exported short.
  const state = await engine.readSession(id);
  const atRest = await encryptedAtRest(engine.store, id);
  const exportSealing = sealing ?? (atRest && !options.plain ? homeSealing(context, id, options) : null);
  if (atRest && options.plain)
    context.terminal.warn(
      `Warning: session ${id} is encrypted at rest, and this export is in the clear (--plain): anyone who can read it reads the whole session.`,
    );
  const lost = eventsLostInRepairOf(state);
  let text: string;
  let signing = '';
  if (options.format === 'md') {
    const { usage } = await lineageOf(engine, state);
    text = renderMarkdown(state, usage, lost);
  } else {
    const home = context.config().config.home;
    const key = readHomeKey(home);
    const exposure = key && exposureOf(key.file);
    if (exposure) context.terminal.warn(exposure);
    const file = await buildExportFile(engine.store, id, await wholeJournal(engine, state), {
      now: context.environment.now(),
      version: context.environment.version,
      lostInRepair: lost,
      signingKey:
        key?.signing && key.publicKeys.signing ? { privateKey: key.signing, publicKey: key.publicKeys.signing } : null,
    });
    text = `${JSON.stringify(file, null, 2)}\n`;
    if (exportSealing) text = encryptExport(text, exportSealing.sealing);
    signing = file.signature ? `, signed by this home (${file.signature.fingerprint})` : '';
    if (!file.signature)
      context.terminal.warn(
        `This home has no signing key, so the export is not signed (an import will say "unsigned"). Create one with: conclave keys init`,
      );
  }
  const sealed = exportSealing ? `, ${exportSealing.said}` : '';
  const losses = lost.map((entry) => `; ${describeEventsLost(entry)}`).join('');
  const target = writeOutput(context, text, options);
  if (target !== null) context.terminal.note(`Exported session ${id} to ${target}${signing}${sealed}${losses}`);
  else if (losses || exportSealing) context.terminal.note(`Session ${id}${sealed}${losses}`);
  if (exportSealing && !sealing)
    context.terminal.note(
      'For another home: --encrypt-for <public key> (its conclave keys export-public) or --passphrase-file <file>; in the clear: --plain.',
    );
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

/** Whether the file store holds the session sealed (another store keeps nothing sealed). */
async function encryptedAtRest(store: SessionStore, id: string): Promise<boolean> {
  return store.kind === 'fs' && (await (store as FsStore).keysOf(id)).length > 0;
}

/** A session encrypted at rest, exported without a choice: encrypted for this home's own key. */
function homeSealing(context: CliContext, id: string, options: ExportOptions): { sealing: Sealing; said: string } {
  const choices = 'Choose: --encrypt-for <public key>, --passphrase-file <file>, or --plain to write it in the clear.';
  if (options.format !== 'json')
    throw new UsageError(`Session ${id} is encrypted at rest, and a --format md export is written in the clear.`, {
      hint: 'Add --plain to write it anyway, or export json (encrypted for this home by default).',
    });
  const home = context.config().config.home;
  const receiving = readHomeKey(home)?.publicKeys.receiving;
  if (!receiving)
    throw new UsageError(
      `Session ${id} is encrypted at rest, so its export is encrypted too, but this home has no key to encrypt it for (${signingKeyFile(home)}).`,
      { hint: `Create one with: conclave keys init. ${choices}` },
    );
  return { sealing: { recipient: receiving }, said: 'encrypted for this home' };
}

/** What to encrypt the export with and how the output line says it, or null. */
function sealingOf(context: CliContext, options: ExportOptions): { sealing: Sealing; said: string } | null {
  const passphrase = readPassphrase(options, context.environment.cwd);
  if (options.encryptFor === undefined && passphrase === null) return null;
  if (options.plain)
    throw new UsageError('--plain writes the export in the clear; it does not go with --encrypt-for or --passphrase.', {
      hint: 'Drop --plain to encrypt the export, or drop --encrypt-for / --passphrase.',
    });
  if (options.format !== 'json')
    throw new UsageError('Only a json export is encrypted; --format md is for reading.', {
      hint: 'Drop --format md, or drop --encrypt-for / --passphrase.',
    });
  if (options.encryptFor !== undefined && passphrase !== null)
    throw new UsageError('Encrypt for a key or with a passphrase, not both.');
  if (passphrase !== null) return { sealing: { passphrase }, said: 'encrypted with the passphrase' };
  return recipientOf(context, options.encryptFor ?? '');
}

/** `--encrypt-for`: a public key file, else the name of a trusted key. */
function recipientOf(context: CliContext, reference: string): { sealing: Sealing; said: string } {
  const file = path.resolve(context.environment.cwd, reference);
  const trusted = existsSync(file)
    ? undefined
    : listTrustedKeys(context.config().config.home).find((key) => key.name.toLowerCase() === reference.toLowerCase());
  if (!existsSync(file) && !trusted)
    throw new UsageError(`--encrypt-for ${reference}: no such public key file, and no trusted key has that name.`, {
      hint: 'Give the file its owner wrote with conclave keys export-public, or a name from conclave keys trust --list.',
    });
  const keys = trusted ? trusted.keys : readPublicKeyFile(file);
  if (!keys.receiving)
    throw new UsageError(`${trusted ? trusted.name : file} has no X25519 key to encrypt for (only a signing key).`, {
      hint: 'Ask its owner for the file conclave keys export-public writes.',
    });
  return {
    sealing: { recipient: keys.receiving },
    said: `encrypted for ${trusted ? trusted.name : fingerprintOf(keys.receiving)}`,
  };
}
