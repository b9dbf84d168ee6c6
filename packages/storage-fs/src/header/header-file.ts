// The session header: written once by `create`, and also recorded in the journal's first
// record (the session's creation), which is the truth. A missing or damaged header.json
// is read from there (listing still marks the session damaged until a repair rewrites the
// file); a header and a journal that name different sessions are damage.

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { headerPlace, openObject, sealedObjectJson } from '@resume/core/encryption';
import { checkedSafeParser, lazySchema } from '@resume/core/lazy-schema';
import {
  JournalCorruptedError,
  SessionExistsError,
  type SessionHeader,
  sessionHeaderSchema,
  UsageError,
} from '@resume/core/spec';
import { z } from 'zod';
import { writeFileAtomically } from '../file-system/atomic-write.js';
import { errorCode } from '../file-system/file-system.js';
import { frameJson, frameObject, unframe } from '../journal/framing.js';
import type { JournalFiles } from '../journal/journal-files.js';
import type { Layout } from '../store/layout.js';
import type { StoreContext } from '../store/store-context.js';
import { checkHeaderFile } from '../store/store-files-check.generated.js';
import { HEADER, JOURNAL, LEASE_DIRECTORY, stripNewline } from '../store/store-paths.js';

/** What header.json holds (built on first use; a valid file is read by its generated check). */
export const headerFileSchema = lazySchema(() => z.object({ v: z.literal(1), header: sessionHeaderSchema }));
const parseHeaderFile = checkedSafeParser(headerFileSchema, checkHeaderFile);

/** What header.json holds: the header, or why it cannot be used. */
export type HeaderFileState =
  | { kind: 'ok'; header: SessionHeader }
  | { kind: 'missing' }
  | { kind: 'damaged'; problem: string };

export interface HeaderFiles {
  create(header: SessionHeader): Promise<void>;
  /** The session's header (header.json, else the journal's first record); null when neither has it. */
  get(sessionId: string): Promise<SessionHeader | null>;
  readFile(sessionId: string): Promise<HeaderFileState>;
  write(sessionId: string, header: SessionHeader): Promise<void>;
}

export function createHeaderFiles(
  context: StoreContext,
  layout: Layout,
  journals: JournalFiles,
  onDamage: (sessionId: string, damage: { problem: string; file: string }) => Promise<void>,
): HeaderFiles {
  const { paths, plain, durable } = context;

  const readFile = async (id: string): Promise<HeaderFileState> => {
    let content: Buffer;
    try {
      content = await plain.readFile(paths.inSession(id, HEADER));
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return { kind: 'missing' };
      if (errorCode(error) === 'EISDIR') return { kind: 'damaged', problem: 'header.json is a directory' };
      throw error;
    }
    const unframed = unframe(stripNewline(content));
    const framed = unframed.ok
      ? openObject(unframed.value, context.keyring, headerPlace(id), paths.inSession(id, HEADER))
      : unframed;
    const parsed = framed.ok ? parseHeaderFile(framed.value) : null;
    if (!parsed?.success) {
      return { kind: 'damaged', problem: framed.ok ? 'the header does not match its schema' : framed.problem };
    }
    return { kind: 'ok', header: parsed.data.header };
  };

  const get = async (id: string): Promise<SessionHeader | null> => {
    if (!(await layout.exists(id))) return null;
    const [file, fromJournal] = await Promise.all([readFile(id), journals.headerFromJournal(id)]);
    const header = file.kind === 'ok' ? file.header : fromJournal;
    if (!header) {
      if (file.kind === 'missing' && (await journals.locate(id))?.missing) return null;
      throw new JournalCorruptedError({
        sessionId: id,
        file: paths.inSession(id, HEADER),
        offset: file.kind === 'damaged' ? 0 : null,
        problem:
          file.kind === 'damaged'
            ? `${file.problem}, and the journal's first record cannot rebuild it`
            : 'the header is missing and the journal has no readable first record to rebuild it from',
      });
    }
    if (file.kind !== 'ok') {
      // Read from the journal: the session opens, and listings say it needs a repair.
      const problem = file.kind === 'missing' ? 'header.json is missing' : `header.json is damaged: ${file.problem}`;
      await onDamage(id, { problem, file: paths.inSession(id, HEADER) }).catch(() => {});
    }
    if (header.id !== id || (fromJournal && fromJournal.id !== header.id)) {
      throw new JournalCorruptedError({
        sessionId: id,
        file: paths.inSession(id, header.id !== id ? HEADER : JOURNAL),
        offset: 0,
        problem: `it belongs to session ${header.id !== id ? header.id : fromJournal?.id}, not ${id}`,
      });
    }
    return header;
  };

  /** header.json's bytes: the header sealed when the store has a current key. */
  const encode = (header: SessionHeader): Buffer => {
    const key = context.keyring?.current() ?? null;
    return key
      ? frameJson(sealedObjectJson(key, headerPlace(header.id), { v: 1 }, { header }))
      : frameObject({ v: 1, header });
  };

  const write = (id: string, header: SessionHeader) =>
    writeFileAtomically(durable, paths.inSession(id, HEADER), encode(header));

  const create = async (header: SessionHeader): Promise<void> => {
    context.files.refuseIfBroken();
    const parsed = sessionHeaderSchema.safeParse(header);
    if (!parsed.success) {
      throw new UsageError(`The session header is not valid: ${parsed.error.issues[0]?.message ?? ''}`);
    }
    await layout.ensure();
    const id = parsed.data.id;
    if (await plain.status(paths.session(id))) throw new SessionExistsError(id);
    // Built under a temporary name and renamed into place, so a crash never leaves half a session.
    const building = path.join(paths.sessions, `.creating-${id}-${randomBytes(4).toString('hex')}`);
    await plain.makeDirectory(building);
    try {
      await plain.makeDirectory(path.join(building, LEASE_DIRECTORY));
      await writeFileAtomically(durable, path.join(building, HEADER), encode(parsed.data));
      const journal = await durable.createExclusive(path.join(building, JOURNAL));
      await journal.datasync();
      await journal.close();
      await durable.syncDirectory(building);
      await plain.rename(building, paths.session(id));
    } catch (error) {
      await plain.removeTree(building).catch(() => {});
      if (['EEXIST', 'ENOTEMPTY'].includes(errorCode(error) ?? '')) throw new SessionExistsError(id);
      throw error;
    }
    await durable.syncDirectory(paths.sessions);
  };

  return { create, get, readFile, write };
}
