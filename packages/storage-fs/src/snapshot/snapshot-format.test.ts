import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { createEngine } from '@resume/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
    expect(decoded).toMatchObject({ v: 2, seq: 6, formatVersion: 3, journalOffset: 100, journalCrc: 7 });
  });

  it('keeps the texts out of the parsed part: they follow it as one checksummed section', () => {
    const bytes = encodeSnapshot(snapshotOf(stateWith(['first text', 'second text'])));
    const newline = bytes.indexOf(0x0a);
    const head = JSON.parse(bytes.toString('utf8', 0, newline));
    expect(head.v).toBe(2);
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

  it('still reads version 1 snapshots (the whole state in one framed line)', () => {
    const state = stateWith(texts);
    const decoded = decodeSnapshot(frameObject({ v: 1, ...snapshotOf(state) }));
    expect(decoded).toEqual({ v: 1, ...snapshotOf(state) });
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

describe('snapshots of a session on disk', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'conclave-snapshot-format-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function sessionOnDisk() {
    const engine = createEngine({ store: createFsStore({ dir }), snapshotEvery: 10 });
    const session = await engine.createSession({ title: 'snapshot format', mode: 'custom' });
    for (const [index, text] of [...texts, ...texts].entries()) {
      session.addMessage({ role: index % 2 === 0 ? 'user' : 'assistant', content: text });
      await session.checkpoint();
    }
    const expected = structuredClone(session.state);
    await session.close();
    await engine.close();
    return { id: session.id, expected, file: path.join(dir, 'sessions', session.id, 'snapshot.json') };
  }

  async function opened(id: string) {
    const engine = createEngine({ store: createFsStore({ dir }) });
    const session = await engine.openSession(id, { replay: 'keyed', countRecovery: false });
    const state = session.state;
    await session.close();
    await engine.close();
    return state;
  }

  it('opens from a version 2 snapshot to the same state the journal folds to', async () => {
    const { id, expected, file } = await sessionOnDisk();
    expect(decodeSnapshot(await readFile(file))?.v).toBe(2);
    expect(await opened(id)).toEqual(expected);
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
