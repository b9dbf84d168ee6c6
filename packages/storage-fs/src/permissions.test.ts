// Paths the operating system refuses (EACCES), as a user who is not the files' owner meets them:
// the store names the refused path (PermissionDeniedError, exit 77), one unreadable session
// never hides the others from a listing, and nothing stored is changed. The file system is
// injected because these tests also run as root, whom file modes do not stop (the CLI's
// tests run the real binary as an unprivileged user).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PermissionDeniedError } from '@resume/core/spec';
import { messageEvent, testHeader, testSummary } from '@resume/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodeFileSystem, type FileSystem } from './file-system/file-system.js';
import { createFsStore, type FsStore } from './fs-store.js';

let dir: string;
const stores: FsStore[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'conclave-permissions-'));
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

interface Modes {
  /** Folders as after `chmod 000`: nothing inside can be reached, their entries cannot be read. */
  closed?: string[];
  /** Files as after `chmod 000`: they cannot be opened. */
  unreadable?: string[];
  /** Folders as after `chmod 500`: entries can be read, none created, renamed or removed. */
  readOnly?: string[];
}

/** The real file system, refusing what a non-owner would be refused under `modes`. */
function refusing(modes: Modes): FileSystem {
  const real = createNodeFileSystem();
  const inside = (target: string, folder: string) => target.startsWith(`${folder}${path.sep}`);
  const refuse = (operation: string, target: string) =>
    Object.assign(new Error(`EACCES: permission denied, ${operation} '${target}'`), {
      code: 'EACCES',
      path: target,
    });
  const reach = (operation: string, target: string) => {
    if ((modes.closed ?? []).some((folder) => inside(target, folder))) throw refuse(operation, target);
  };
  const open = (operation: string, target: string) => {
    reach(operation, target);
    if ((modes.unreadable ?? []).includes(target) || (modes.closed ?? []).includes(target))
      throw refuse(operation, target);
  };
  const change = (operation: string, target: string) => {
    reach(operation, target);
    if ((modes.readOnly ?? []).includes(path.dirname(target))) throw refuse(operation, target);
  };
  return {
    ...real,
    openAppend: async (target) => {
      open('open', target);
      return real.openAppend(target);
    },
    createExclusive: async (target) => {
      change('open', target);
      return real.createExclusive(target);
    },
    readFile: async (target) => {
      open('open', target);
      return real.readFile(target);
    },
    readRange: async (target, position, length) => {
      open('open', target);
      return real.readRange(target, position, length);
    },
    status: async (target) => {
      reach('lstat', target);
      return real.status(target);
    },
    statusNow: (target) => {
      reach('lstat', target);
      return real.statusNow?.(target) ?? null;
    },
    existsNow: (target) => {
      reach('lstat', target);
      return real.existsNow?.(target) ?? false;
    },
    readDirectory: async (target) => {
      open('scandir', target);
      return real.readDirectory(target);
    },
    readSubdirectories: async (target) => {
      open('scandir', target);
      return (await real.readSubdirectories?.(target)) ?? [];
    },
    makeDirectory: async (target) => {
      change('mkdir', target);
      return real.makeDirectory(target);
    },
    rename: async (from, to) => {
      change('rename', from);
      change('rename', to);
      return real.rename(from, to);
    },
    link: async (from, to) => {
      change('link', to);
      return real.link(from, to);
    },
    remove: async (target) => {
      change('unlink', target);
      return real.remove(target);
    },
    removeTree: async (target) => {
      change('rm', target);
      return real.removeTree(target);
    },
    truncate: async (target, length) => {
      open('open', target);
      return real.truncate(target, length);
    },
  };
}

const now = () => new Date('2025-06-01T12:00:00.000Z');

function open(fileSystem?: FileSystem): FsStore {
  const store = createFsStore({ dir, now, ...(fileSystem ? { fileSystem } : {}) });
  stores.push(store);
  return store;
}

async function sessionWith(store: FsStore, batches: number, title = 'a session'): Promise<string> {
  const header = { ...testHeader(), title };
  await store.create(header);
  for (let seq = 1; seq <= batches; seq += 1) {
    const batch = { expectedSeq: seq - 1, epoch: 0, events: [messageEvent(seq)], summary: testSummary(header, seq) };
    await store.append(header.id, batch);
  }
  return header.id;
}

/** Two sessions on disk, written and closed by an owner; their folders and files. */
async function twoSessions() {
  const owner = open();
  const readable = await sessionWith(owner, 2, 'readable');
  const refused = await sessionWith(owner, 3, 'refused');
  await owner.close();
  const folder = path.join(dir, 'sessions', refused);
  return { readable, refused, folder, journal: path.join(folder, 'journal.jsonl') };
}

async function refusal(work: Promise<unknown>): Promise<PermissionDeniedError> {
  const error = await work.then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(PermissionDeniedError.isInstance(error), String(error)).toBe(true);
  return error as PermissionDeniedError;
}

describe('paths the operating system refuses', () => {
  it('lists an unreadable session as unreadable, with its path, and every other session as it is', async () => {
    const { readable, refused, folder } = await twoSessions();
    // A session written since the index was stamped makes the listing look at every session again.
    const store = open(refusing({ closed: [folder] }));
    await sessionWith(store, 1, 'new');
    const listed = await store.list();
    expect(listed.map((summary) => summary.title).sort()).toEqual(['new', 'readable', 'refused']);
    expect(listed.find((summary) => summary.id === readable)?.unreadable).toBeUndefined();
    expect(listed.find((summary) => summary.id === refused)?.unreadable).toEqual({
      path: folder,
      problem: `Permission denied: cannot read ${folder}`,
    });
  });

  it('lists a session whose journal cannot be opened as unreadable, naming the journal', async () => {
    const { refused, journal } = await twoSessions();
    await rm(path.join(dir, 'index'), { recursive: true });
    const listed = await open(refusing({ unreadable: [journal] })).list();
    expect(listed.find((summary) => summary.id === refused)?.unreadable?.path).toBe(journal);
    expect(listed).toHaveLength(2);
  });

  it('names the refused folder when an unreadable session is read, verified, repaired or deleted, and changes nothing', async () => {
    const { refused, folder, journal } = await twoSessions();
    const before = await readFile(journal);
    const store = open(refusing({ closed: [folder] }));
    for (const work of [
      store.getHeader(refused),
      store.verify(refused),
      store.repair(refused),
      store.acquireLease(refused, { holder: { pid: process.pid, host: 'here' } }),
      (async () => {
        for await (const _ of store.read(refused));
      })(),
    ]) {
      const error = await refusal(work);
      expect(error.path).toBe(folder);
      expect(error.code).toBe('permission-denied');
      expect(error.message).toBe(`Permission denied: cannot read ${folder}`);
    }
    expect(await readFile(journal)).toEqual(before);
  });

  it('names the lease folder that cannot be read', async () => {
    const { refused, folder } = await twoSessions();
    const lease = path.join(folder, 'lease');
    const store = open(refusing({ closed: [lease] }));
    for (const work of [store.inspectLease(refused), store.repair(refused)]) {
      expect((await refusal(work)).path).toBe(lease);
    }
    expect((await open().list()).map((summary) => summary.id)).toContain(refused);
  });

  it('names the sessions folder when no session can be created or deleted in it', async () => {
    const { refused } = await twoSessions();
    const sessions = path.join(dir, 'sessions');
    const store = open(refusing({ readOnly: [sessions] }));
    const created = await refusal(sessionWith(store, 0));
    expect([created.path, created.access]).toEqual([sessions, 'write']);
    const deleted = await refusal(store.delete(refused));
    expect([deleted.path, deleted.access]).toEqual([sessions, 'write']);
    expect((await open().list()).map((summary) => summary.id)).toContain(refused);
  });

  it('names the data home when it may not be searched', async () => {
    await twoSessions();
    const error = await refusal(open(refusing({ closed: [dir] })).list());
    expect([error.path, error.access]).toEqual([dir, 'read']);
  });

  it('lists from the journals when the listing index cannot be read', async () => {
    const { readable, refused } = await twoSessions();
    const store = open(refusing({ closed: [path.join(dir, 'index')] }));
    expect((await store.list()).map((summary) => summary.id).sort()).toEqual([readable, refused].sort());
  });
});
