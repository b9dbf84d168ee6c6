// Turns what a user typed into a session id (docs/architecture.md#the-cli): a full id or a unique prefix of
// at least 6 characters, the index shown by `sessions list`, or the path of an exported
// file (imported first when the store does not have it yet).
import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Engine } from '@resume/core';
import { SessionNotFoundError, UsageError } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';

/** List indexes are short numbers; anything of 6+ characters is read as an id prefix. */
const INDEX_PATTERN = /^[1-9]\d{0,4}$/;

/** Whether a reference is a number from `sessions list` (rather than an id, a prefix or a path). */
export function isListIndex(reference: string): boolean {
  return INDEX_PATTERN.test(reference.trim());
}

export async function resolveSession(context: CliContext, reference: string): Promise<string> {
  const engine = await context.engine();
  const trimmed = reference.trim();
  if (INDEX_PATTERN.test(trimmed)) {
    const index = Number(trimmed);
    const sessions = await engine.listSessions();
    const chosen = sessions[index - 1];
    if (chosen) return chosen.id;
    throw new SessionNotFoundError(
      trimmed,
      `There is no session number ${index}: ${sessions.length === 0 ? 'there are no sessions yet' : `the list has ${sessions.length}`}.`,
      { hint: 'The numbers are those shown by: conclave sessions list' },
    );
  }
  const file = exportPathOf(context, trimmed);
  if (file !== null) return sessionFromExport(context, file);
  return resolveIdPrefix(engine, trimmed);
}

/** The path of the export file a reference names, or null when it names a session some other way. */
export function exportPathOf(context: CliContext, reference: string): string | null {
  const trimmed = reference.trim();
  if (!looksLikePath(trimmed)) return null;
  const file = path.resolve(context.environment.cwd, trimmed);
  // Only a file can be an export; a directory falls through to the id lookup (not found). A path
  // the system will not even look up (a name too long, a folder it may not search) is read as
  // an export, whose reader says why it cannot be.
  const stats = (() => {
    try {
      return statSync(file, { throwIfNoEntry: false });
    } catch {
      return 'unreadable' as const;
    }
  })();
  return stats === 'unreadable' || stats?.isFile() ? file : null;
}

/**
 * A full id or a unique prefix, through the engine. The engine's refusal of a reference
 * (too short, ambiguous) says what is wrong; this adds where to find the ids.
 */
export async function resolveIdPrefix(engine: Pick<Engine, 'resolveSessionId'>, reference: string): Promise<string> {
  try {
    return await engine.resolveSessionId(reference);
  } catch (error) {
    if (UsageError.isInstance(error) && error.hint === undefined) {
      throw new UsageError(error.message, { hint: 'List sessions with: conclave sessions list', cause: error });
    }
    throw error;
  }
}

function looksLikePath(reference: string): boolean {
  // No file name holds a NUL byte: such a reference is looked up (and refused) as an id.
  if (reference.includes('\0')) return false;
  return reference.includes('/') || reference.includes(path.sep) || /\.json$/i.test(reference);
}

async function sessionFromExport(context: CliContext, file: string): Promise<string> {
  // Loaded here: the export format's schemas are built only when a reference is a file.
  const [{ importExportFile }, { describeOpened, noteSigner, openExportFile, requireSigner }] = await Promise.all([
    import('./export-file.js'),
    import('./open-export.js'),
  ]);
  const opened = openExportFile(context, file);
  const data = opened.data;
  const store = await context.store();
  if (await store.getHeader(data.sessionId)) return data.sessionId;
  requireSigner(context, file, opened.signer, false);
  await importExportFile(store, data, { pid: process.pid, host: hostname() });
  context.terminal.note(`Imported session ${data.sessionId} from ${file}, ${describeOpened(opened)}.`);
  noteSigner(context, opened);
  return data.sessionId;
}
