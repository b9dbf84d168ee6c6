import { mkdtemp, readdir, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { createEngine } from '@resume/core';
import { JournalCorruptedError } from '@resume/core/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodeFileSystem, type FileSystem } from '../file-system/file-system.js';
import { createFsStore } from '../fs-store.js';
import { frameObject } from '../journal/framing.js';
import { decodeSnapshot, encodeSnapshot } from './snapshot-format.js';

const texts = [
  'plain text',
  '',
  'quotes " and \\ backslashes, a newline\nand a tab\t',
  'accents é à ü, CJK 漢字, an emoji 🎉 and a joiner 👩‍💻',
  'a lone surrogate \ud800 stays inline',
  'x'.repeat(5000),
];

function stateWith(contents: string[]) {
  return {
    header: { id: 'session' },
    lastSeq: contents.length,
    messages: contents.map((content, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content,
      speaker: null,
      round: null,
      ...(index === 2 ? { tags: ['judge'] } : {}),
      seq: index + 1,
      at: '2025-06-01T12:00:00.000Z',
    })),
    steps: [],
  };
}

const snapshotOf = (state: unknown) => ({ seq: 6, formatVersion: 3, journalOffset: 100, journalCrc: 7, state });

/** The same snapshot as the versions that named the file `snapshot.json` wrote it: with `v: 2` in its header. */
function asLayoutTwo(bytes: Buffer): Buffer {
  const newline = bytes.indexOf(0x0a);
  const { crc: _crc, ...header } = JSON.parse(bytes.toString('utf8', 0, newline));
  return Buffer.concat([frameObject({ v: 2, ...header }), bytes.subarray(newline + 1)]);
}

describe('snapshot file format', () => {
  it('round trips a state: every view of the messages sees the texts that were written', () => {
    const state = stateWith(texts);
    const decoded = decodeSnapshot(encodeSnapshot(snapshotOf(state)));
    expect(decoded).not.toBeNull();
    const read = decoded?.state as ReturnType<typeof stateWith>;
    // Before any text is read: serialization, cloning and spreading see the texts.
    expect(JSON.stringify(read)).toBe(JSON.stringify(state));
    expect(structuredClone(read)).toEqual(state);
    expect(read.messages.map((message) => ({ ...message }))).toEqual(state.messages);
    expect(read.messages.map((message) => Object.keys(message))).toEqual(
      state.messages.map((message) => Object.keys(message)),
    );
    expect(isDeepStrictEqual(read, state)).toBe(true);
    expect(read).toEqual(state);
    expect(decoded).toMatchObject({ seq: 6, formatVersion: 3, journalOffset: 100, journalCrc: 7 });
  });

  it('keeps the texts out of the parsed part: they follow it as one checksummed section', () => {
    const bytes = encodeSnapshot(snapshotOf(stateWith(['first text', 'second text'])));
    const newline = bytes.indexOf(0x0a);
    const head = JSON.parse(bytes.toString('utf8', 0, newline));
    // One version: the folded state's.
    expect(head).not.toHaveProperty('v');
    expect(head.formatVersion).toBe(3);
    expect(head.contents).toMatchObject({ texts: 2, bytes: 21 });
    expect(head.state.messages.map((message: { content: unknown }) => message.content)).toEqual([10, 11]);
    expect(bytes.toString('utf8', newline + 1)).toBe('first textsecond text');
  });

  it('writes a text assigned after the read, and an untouched one as it was read', () => {
    const first = encodeSnapshot(snapshotOf(stateWith(texts)));
    const read = decodeSnapshot(first)?.state as ReturnType<typeof stateWith>;
    // Nothing read: the same bytes again (the texts are copied, not decoded and encoded).
    expect(encodeSnapshot(snapshotOf(read)).equals(first)).toBe(true);
    const unread = read.messages.filter((message) => Object.getOwnPropertyDescriptor(message, 'content')?.get);
    expect(unread).toHaveLength(texts.length - 1); // all but the inline one, still undecoded
    const message = read.messages[1];
    if (!message) throw new Error('no message');
    message.content = 'replaced';
    const again = decodeSnapshot(encodeSnapshot(snapshotOf(read)))?.state as ReturnType<typeof stateWith>;
    expect(again.messages.map((entry) => entry.content)).toEqual(texts.map((text, i) => (i === 1 ? 'replaced' : text)));
  });

  it('still reads the layouts a snapshot.json had: 1 (the whole state in one framed line) and 2 (this one)', () => {
    const state = stateWith(texts);
    expect(decodeSnapshot(frameObject({ v: 1, ...snapshotOf(state) }))).toEqual(snapshotOf(state));
    const layoutTwo = decodeSnapshot(asLayoutTwo(encodeSnapshot(snapshotOf(state))));
    expect(layoutTwo).toEqual(snapshotOf(state));
    expect(layoutTwo).not.toHaveProperty('v');
  });

  it('ignores a snapshot of a layout it does not know', () => {
    const bytes = encodeSnapshot(snapshotOf(stateWith(['a text'])));
    const newline = bytes.indexOf(0x0a);
    const { crc: _crc, ...header } = JSON.parse(bytes.toString('utf8', 0, newline));
    const contents = bytes.subarray(newline + 1);
    expect(decodeSnapshot(Buffer.concat([frameObject({ ...header, v: 3 }), contents]))).toBeNull();
    expect(decodeSnapshot(Buffer.concat([frameObject({ ...header, index: [] }), contents]))).toBeNull();
  });

  it('writes a state whose messages are not texts as it is', () => {
    const state = { messages: [{ content: 12 }, { content: { parts: [] } }, 'not a message'], other: true };
    expect(decodeSnapshot(encodeSnapshot(snapshotOf(state)))?.state).toEqual(state);
    expect(decodeSnapshot(encodeSnapshot(snapshotOf({ at: 6 })))?.state).toEqual({ at: 6 });
  });

  it('finds a flipped byte anywhere in the file, and a cut or extended file, when it is read', () => {
    const bytes = encodeSnapshot(snapshotOf(stateWith(texts)));
    const contentsStart = bytes.indexOf(0x0a) + 1;
    for (const offset of [5, contentsStart - 2, contentsStart, contentsStart + 100, bytes.length - 1]) {
      const damaged = Buffer.from(bytes);
      damaged[offset] = (damaged[offset] as number) ^ 0x01;
      expect(decodeSnapshot(damaged)).toBeNull();
    }
    expect(decodeSnapshot(bytes.subarray(0, bytes.length - 1))).toBeNull();
    expect(decodeSnapshot(bytes.subarray(0, contentsStart))).toBeNull();
    expect(decodeSnapshot(Buffer.concat([bytes, Buffer.from('x')]))).toBeNull();
  });
});

describe('replay log operations in a snapshot', () => {
  function sessionState() {
    const state = stateWith(['first text', 'second text é', 'third text']);
    for (const [index, message] of state.messages.entries()) message.seq = index + 2;
    const checkpoints = [{ seq: 10, label: null, at: 'c10' }];
    const operations: Record<string, unknown>[] = [
      { seq: 1, at: 'a1', type: 'step-started', key: 'fetch', occurrence: 1 },
      ...state.messages.map(({ seq, at, ...message }) => ({ seq, at, type: 'message-added', message })),
      { seq: 10, at: 'c10', type: 'checkpoint-marked', label: null },
    ];
    // A message operation that is not the state's message (its text differs): kept as it is.
    const stray = operations[3] as { message: { content: string } };
    stray.message = { ...stray.message, content: 'not the same text' };
    return { state: { ...state, lastSeq: 10, checkpoints }, operations };
  }

  it('keeps operations as references to the state where they are its messages and checkpoints', () => {
    const { state, operations } = sessionState();
    const bytes = encodeSnapshot({ ...snapshotOf(state), seq: 10, operations });
    const head = JSON.parse(bytes.toString('utf8', 0, bytes.indexOf(0x0a)));
    expect(head.operations).toEqual([operations[0], 0, 1, operations[3], [0]]);
    const decoded = decodeSnapshot(bytes);
    // The texts of message operations are the state's, still undecoded.
    const message = (decoded?.operations?.[1] as { message: object } | undefined)?.message ?? {};
    expect(Object.getOwnPropertyDescriptor(message, 'content')?.get).toBeDefined();
    expect(decoded?.operations).toEqual(operations);
    expect(JSON.stringify(decoded?.operations)).toBe(JSON.stringify(operations));
    // Written again without reading them: the same bytes.
    expect(
      encodeSnapshot({ ...snapshotOf(decoded?.state), seq: 10, operations: decoded?.operations }).equals(bytes),
    ).toBe(true);
  });

  it('drops operations that do not fit the state or the snapshot, keeping the state', () => {
    const { state } = sessionState();
    for (const operations of [[7], [[3]], [{ seq: 11, at: 'x', type: 'data-set' }], [1, 0], ['text']]) {
      const bytes = encodeSnapshot({ ...snapshotOf(state), seq: 10, operations });
      const decoded = decodeSnapshot(bytes);
      expect(decoded?.state).toEqual(state);
      expect(decoded?.operations).toBeUndefined();
    }
  });
});

describe('snapshots of a session on disk', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'conclave-snapshot-format-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function sessionOnDisk(contents = [...texts, ...texts]) {
    const engine = createEngine({ store: createFsStore({ dir }), snapshotEvery: 10 });
    const session = await engine.createSession({ title: 'snapshot format', mode: 'custom' });
    for (const [index, text] of contents.entries()) {
      session.addMessage({ role: index % 2 === 0 ? 'user' : 'assistant', content: text });
      await session.checkpoint();
    }
    const expected = structuredClone(session.state);
    await session.close();
    await engine.close();
    return { id: session.id, expected, file: path.join(dir, 'sessions', session.id, 'snapshot.bin') };
  }

  async function opened(id: string) {
    const engine = createEngine({ store: createFsStore({ dir }) });
    const session = await engine.openSession(id, { replay: 'keyed', countRecovery: false });
    const state = session.state;
    await session.close();
    await engine.close();
    return state;
  }

  it('opens from its snapshot.bin to the same state the journal folds to', async () => {
    const { id, expected, file } = await sessionOnDisk();
    expect(decodeSnapshot(await readFile(file))?.seq).toBeGreaterThan(1);
    expect(await opened(id)).toEqual(expected);
  });

  it('a home written when the snapshot was snapshot.json opens from it, and the next snapshot is written as snapshot.bin', async () => {
    const { id, expected, file } = await sessionOnDisk();
    const written = decodeSnapshot(await readFile(file));
    const legacy = path.join(dir, 'sessions', id, 'snapshot.json');
    await writeFile(legacy, asLayoutTwo(await readFile(file)));
    await rm(file);
    const store = createFsStore({ dir });
    expect((await store.getSnapshot(id))?.seq).toBe(written?.seq);
    expect(await store.verify(id)).toMatchObject({ problems: [] });
    await store.close();
    expect(await opened(id)).toEqual(expected);

    const engine = createEngine({ store: createFsStore({ dir }), snapshotEvery: 1 });
    const session = await engine.openSession(id, { replay: 'keyed', countRecovery: false });
    session.addMessage({ role: 'user', content: 'one more' });
    await session.checkpoint();
    await session.close();
    await engine.close();
    expect(await readdir(path.join(dir, 'sessions', id))).toContain('snapshot.bin');
    expect(await readdir(path.join(dir, 'sessions', id))).not.toContain('snapshot.json');
    expect((await opened(id)).messages.at(-1)?.content).toBe('one more');
  });

  it('a damaged snapshot.json of such a home is found by verify and moved aside by repair', async () => {
    const { id, expected, file } = await sessionOnDisk();
    const bytes = asLayoutTwo(await readFile(file));
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x01;
    const legacy = path.join(dir, 'sessions', id, 'snapshot.json');
    await writeFile(legacy, bytes);
    await rm(file);
    const store = createFsStore({ dir });
    expect((await store.verify(id)).problems).toEqual([expect.objectContaining({ file: legacy })]);
    const report = await store.repair(id);
    expect(report.actions).toContainEqual(expect.stringMatching(/^snapshot\.json: damaged; dropped/));
    expect((await store.verify(id)).problems).toEqual([]);
    await store.close();
    expect(
      (await readdir(path.join(dir, 'sessions', id))).some((name) => name.startsWith('snapshot.json.damaged-')),
    ).toBe(true);
    expect(await opened(id)).toEqual(expected);
  });

  it('an archived snapshot.json.gz of such a home is read, and un-archived as snapshot.bin', async () => {
    const { id, file } = await sessionOnDisk();
    const written = decodeSnapshot(await readFile(file));
    const store = createFsStore({ dir });
    await store.archive(id);
    const sessionDir = path.join(dir, 'sessions', id);
    await rename(path.join(sessionDir, 'snapshot.bin.gz'), path.join(sessionDir, 'snapshot.json.gz'));
    expect((await store.getSnapshot(id))?.seq).toBe(written?.seq);
    await store.close();
    const engine = createEngine({ store: createFsStore({ dir }) });
    const session = await engine.openSession(id, { replay: 'keyed', countRecovery: false });
    session.addMessage({ role: 'user', content: 'one more' });
    await session.checkpoint();
    await session.close();
    await engine.close();
    const files = await readdir(sessionDir);
    expect(files).toContain('snapshot.bin');
    expect(files.filter((name) => name.startsWith('snapshot.json'))).toEqual([]);
    expect(decodeSnapshot(await readFile(file))?.seq).toBeGreaterThanOrEqual(written?.seq ?? Number.NaN);
  });

  it('an ordered open uses the replay log the snapshot kept and replays the same code without writing', async () => {
    const { id, expected, file } = await sessionOnDisk();
    expect(decodeSnapshot(await readFile(file))?.operations?.length).toBeGreaterThan(10);
    const engine = createEngine({ store: createFsStore({ dir }) });
    const again = await engine.openSession(id, { countRecovery: false });
    expect(again.state).toEqual(expected);
    for (const [index, text] of [...texts, ...texts].entries()) {
      again.addMessage({ role: index % 2 === 0 ? 'user' : 'assistant', content: text });
      await again.checkpoint();
    }
    expect(again.state.lastSeq).toBe(expected.lastSeq);
    await again.close();
    await engine.close();
  });

  it('a flipped byte in the texts is found by the open, which ignores the snapshot and replays the journal', async () => {
    const { id, expected, file } = await sessionOnDisk();
    const bytes = await readFile(file);
    const offset = bytes.indexOf(Buffer.from('accents')) + 2;
    expect(offset).toBeGreaterThan(bytes.indexOf(0x0a));
    bytes[offset] = (bytes[offset] as number) ^ 0x20;
    await writeFile(file, bytes);
    const store = createFsStore({ dir });
    // The store's read of the snapshot (what an open does first) no longer offers it.
    expect(await store.getSnapshot(id)).toBeNull();
    await store.close();
    expect(await opened(id)).toEqual(expected);
  });

  it('an open after a clean release trusts the prefix the last writer vouched for, and checks it again once the journal changed', async () => {
    // Long enough that reading the record before the snapshot's offset does not start at byte 0.
    const { id, expected, file } = await sessionOnDisk([
      ...texts,
      ...Array.from({ length: 30 }, (_, i) => `${i} ${'y'.repeat(8000)}`),
    ]);
    const journal = path.join(dir, 'sessions', id, 'journal.jsonl');
    // The prefix a snapshot summarizes is read whole (from byte 0 to its recorded offset) to be checked.
    const prefix = decodeSnapshot(await readFile(file))?.journalOffset;
    expect(prefix).toBeGreaterThan(0);
    const node = createNodeFileSystem();
    const prefixReads: number[] = [];
    const counting: FileSystem = {
      ...node,
      readRange: (file, position, length) => {
        if (file === journal && position === 0) prefixReads.push(length);
        return node.readRange(file, position, length);
      },
    };
    const openWith = async () => {
      const engine = createEngine({ store: createFsStore({ dir, fileSystem: counting }) });
      try {
        const session = await engine.openSession(id, { replay: 'keyed', countRecovery: false });
        const state = session.state;
        await session.close();
        return state;
      } finally {
        await engine.close();
      }
    };
    // The writer that made the session never checked the journal (it wrote all of it): the first
    // open checks the prefix; the next ones follow a writer that did, released cleanly.
    expect(await openWith()).toEqual(expected);
    expect(prefixReads).toContain(prefix);
    prefixReads.length = 0;
    expect(await openWith()).toEqual(expected);
    expect(await openWith()).toEqual(expected);
    expect(prefixReads).not.toContain(prefix);

    // A byte changed before the snapshot, the size kept: the journal's change time moved, so it is checked.
    const bytes = await readFile(journal);
    const offset = bytes.indexOf(Buffer.from('plain text'));
    bytes[offset] = (bytes[offset] as number) ^ 0x01;
    await writeFile(journal, bytes);
    await expect(openWith()).rejects.toSatisfy((error) => JournalCorruptedError.isInstance(error));
    expect(prefixReads).toContain(prefix);
  });

  it('a cut snapshot is ignored and the journal replayed', async () => {
    const { id, expected, file } = await sessionOnDisk();
    const bytes = await readFile(file);
    await truncate(file, bytes.indexOf(0x0a) + 10);
    const store = createFsStore({ dir });
    expect(await store.getSnapshot(id)).toBeNull();
    await store.close();
    expect(await opened(id)).toEqual(expected);
  });
});
