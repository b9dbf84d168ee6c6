// Damage a user can meet on the file store, and what they see: early journal damage hidden
// behind a snapshot is found before anything is appended after it, and repair keeps what
// the snapshot proves; a damaged or missing header is rebuilt from the journal; an empty or
// missing journal never makes a session vanish; a journal cut short of what other files
// remember (snapshot, listing index, the last writer's lease) is damaged, never shorter; a
// damaged newline before the last record is reported, not cut as a torn tail; a lease
// folder replaced by a symlink is refused. Real files in a temporary home, the real CLI.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { createEngine, type Engine } from '@resume/core';
import { ConclaveError, type EventInput, JournalCorruptedError, StoreIoError } from '@resume/core/spec';
import { exitCodeFor } from '@resume/runner/exit-codes';
import { createFsStore } from '@resume/storage-fs';
import { describe, expect, it } from 'vitest';
import { runConclave } from '../support/cli-in-process.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

interface Home {
  home: string;
  cwd: string;
  id: string;
  dir: string;
  journal: string;
  /** Every message of the session, in order. */
  messages: string[];
}

const engineAt = (home: string, snapshotEvery = 1000): Engine =>
  createEngine({ store: createFsStore({ dir: home }), snapshotEvery });

/** A finished session of `rounds` checkpoints (two messages each), snapshots every `snapshotEvery` events. */
/** `initialEvents`: the session's set-up, written in its first record with its creation (as a workflow run's spec is). */
async function sessionOnDisk(rounds: number, snapshotEvery = 1000, initialEvents: EventInput[] = []): Promise<Home> {
  const root = temporaryDirectory();
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  mkdirSync(cwd);
  const engine = engineAt(home, snapshotEvery);
  const session = await engine.createSession({ title: 'integrity', mode: 'custom', initialEvents });
  const messages: string[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    for (const content of [`question ${round}`, `answer ${round}`]) {
      session.addMessage({ role: content.startsWith('q') ? 'user' : 'assistant', content });
      messages.push(content);
    }
    await session.checkpoint(`round ${round}`);
  }
  await session.close();
  await engine.close();
  const dir = path.join(home, 'sessions', session.id);
  return { home, cwd, id: session.id, dir, journal: path.join(dir, 'journal.jsonl'), messages };
}

/** Byte offset where line `index` (0-based) of a file starts. */
function lineStart(bytes: Buffer, index: number): number {
  let offset = 0;
  for (let line = 0; line < index; line += 1) offset = bytes.indexOf(0x0a, offset) + 1;
  return offset;
}

function flip(file: string, offset: number): void {
  const bytes = readFileSync(file);
  bytes[offset] = (bytes[offset] ?? 0) ^ 0x04;
  writeFileSync(file, bytes);
}

const contents = async (engine: Engine, id: string) =>
  (await engine.readSession(id)).messages.map((message) => message.content);

const cli = (home: Home, ...argv: string[]) => runConclave(argv, { home: home.home, cwd: home.cwd });

describe('damage before a snapshot', () => {
  it('is found before anything is appended, reported by verify, and repair keeps what the snapshot proves', async () => {
    const home = await sessionOnDisk(20, 8);
    expect(existsSync(path.join(home.dir, 'snapshot.bin'))).toBe(true);
    const original = readFileSync(home.journal);
    flip(home.journal, lineStart(original, 4) + 60);
    const damaged = readFileSync(home.journal);

    // Neither a resume nor a read goes on over it, and nothing is written after it.
    const engine = engineAt(home.home, 8);
    await expect(engine.openSession(home.id)).rejects.toSatisfy((error) => JournalCorruptedError.isInstance(error));
    // Keyed replay reads only what follows the snapshot: the snapshot's proof of its prefix still finds it.
    await expect(engine.openSession(home.id, { replay: 'keyed' })).rejects.toSatisfy((error) =>
      JournalCorruptedError.isInstance(error),
    );
    await expect(engine.readSession(home.id)).rejects.toSatisfy((error) => JournalCorruptedError.isInstance(error));
    await engine.close();
    expect(readFileSync(home.journal)).toEqual(damaged);
    const resumed = await cli(home, '--resume', home.id, '--yes');
    expect(resumed.code).toBe(65);
    expect(readFileSync(home.journal)).toEqual(damaged);

    const verified = await cli(home, 'sessions', 'verify', home.id);
    expect(verified.code).toBe(65);
    expect(verified.stdout).toContain(`at byte ${lineStart(original, 4)}`);

    // The dry run says what would go and changes nothing.
    const dryRun = await cli(home, 'sessions', 'repair', home.id, '--dry-run');
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toMatch(/events \d+\.\.\d+ are unreadable; they are recorded as lost/);
    expect(dryRun.stdout).toContain('Nothing was changed');
    expect(readFileSync(home.journal)).toEqual(damaged);

    const lastSeqBefore = (await engineAt(home.home).store.getSummary(home.id))?.lastSeq ?? 0;
    const repaired = await cli(home, 'sessions', 'repair', home.id, '--json');
    expect(repaired.code).toBe(0);
    const report = JSON.parse(repaired.stdout) as { keptSeq: number; savedTo: string };
    // Everything after the damaged record is kept: the snapshot proves the state across it.
    expect(report.keptSeq).toBe(lastSeqBefore);
    expect(readFileSync(report.savedTo)).toEqual(damaged);
    expect((await cli(home, 'sessions', 'verify', home.id)).code).toBe(0);

    const after = engineAt(home.home, 8);
    expect(await contents(after, home.id)).toEqual(home.messages);
    // Replaying the code in order needs the lost records themselves: that is refused, typed, never guessed.
    await expect(after.openSession(home.id)).rejects.toThrow(/were lost to damage/);
    const session = await after.openSession(home.id, { replay: 'keyed' });
    session.addMessage({ role: 'user', content: 'after the repair' });
    await session.checkpoint();
    await session.close();
    expect(await contents(after, home.id)).toEqual([...home.messages, 'after the repair']);
    await after.close();
  });
});

describe('what verify and repair say about a changed byte', () => {
  it('names the damaged record and its events, never calls the journal cut, and a dry run drops nothing', async () => {
    const home = await sessionOnDisk(20, 8);
    const original = readFileSync(home.journal);
    // Line 4 is the fourth checkpoint's record: events 11..13 (the creation, then three per round).
    const damagedAt = lineStart(original, 4);
    flip(home.journal, damagedAt + 60);
    const lastSeq = (await engineAt(home.home).store.getSummary(home.id))?.lastSeq ?? 0;

    const verified = await cli(home, 'sessions', 'verify', home.id);
    expect(verified.code).toBe(65);
    expect(verified.stdout).toContain(`the record at byte ${damagedAt} (events 11..13) is damaged: checksum mismatch`);
    expect(verified.stdout).not.toContain('it was cut');

    const dryRun = await cli(home, 'sessions', 'repair', home.id, '--dry-run');
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toContain('events 11..13 are unreadable; they are recorded as lost');
    expect(dryRun.stdout).not.toMatch(/cannot be kept|events after/);
    const report = JSON.parse((await cli(home, 'sessions', 'repair', home.id, '--dry-run', '--json')).stdout) as {
      keptSeq: number;
      droppedEvents: unknown;
    };
    expect(report).toMatchObject({ keptSeq: lastSeq, droppedEvents: null });
  });
});

describe('a damaged snapshot', () => {
  it('verify finds it, repair drops it (kept aside) and says so, and verify is then satisfied', async () => {
    const home = await sessionOnDisk(20, 8);
    const snapshot = path.join(home.dir, 'snapshot.bin');
    flip(snapshot, 200);
    const damaged = readFileSync(snapshot);
    const journal = readFileSync(home.journal);

    const verified = await cli(home, 'sessions', 'verify', home.id);
    expect(verified.code).toBe(65);
    expect(verified.stdout).toContain('the snapshot is damaged');

    const dryRun = await cli(home, 'sessions', 'repair', home.id, '--dry-run');
    expect(dryRun.stdout).toContain('snapshot.bin: damaged; dropped (moved aside to');
    expect(readFileSync(snapshot)).toEqual(damaged);

    const repaired = await cli(home, 'sessions', 'repair', home.id);
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toContain('snapshot.bin: damaged; dropped (moved aside to');
    const aside = readdirSync(home.dir).filter((name) => name.startsWith('snapshot.bin.damaged-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(home.dir, aside[0] ?? ''))).toEqual(damaged);
    expect(readFileSync(home.journal)).toEqual(journal);
    expect((await cli(home, 'sessions', 'verify', home.id)).code).toBe(0);
    const engine = engineAt(home.home, 8);
    expect(await contents(engine, home.id)).toEqual(home.messages);
    await engine.close();
  });
});

describe('truncation evidence', () => {
  it('a journal cut short of its snapshot is damaged, and repair keeps what the snapshot proves and says which events are gone', async () => {
    const home = await sessionOnDisk(20, 8);
    const bytes = readFileSync(home.journal);
    truncateSync(home.journal, lineStart(bytes, 6));
    const engine = engineAt(home.home, 8);
    await expect(engine.readSession(home.id)).rejects.toThrow(/it was cut/);
    await engine.close();
    const listed = await cli(home, 'sessions', 'list', '--json');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: home.id, status: 'damaged' })]);
    const dryRun = await cli(home, 'sessions', 'repair', home.id, '--dry-run');
    expect(dryRun.stdout).toMatch(
      /the state after event \d+ \(messages, usage, status\) is rebuilt from snapshot\.bin/,
    );
    expect(dryRun.stdout).toMatch(/events \d+\.\.\d+ cannot be kept \(known from the listing index, its last writer\)/);
    expect(dryRun.stdout).toContain('snapshot.bin: point it at the repaired journal');
    expect((await cli(home, 'sessions', 'repair', home.id)).code).toBe(0);
    // What is left is a prefix of what there was, said out loud above: every message up to the snapshot's event.
    const after = engineAt(home.home);
    const kept = await contents(after, home.id);
    const snapshotState = (await after.store.getSnapshot(home.id))?.state as { messages: unknown[] };
    expect(kept.length).toBe(snapshotState.messages.length);
    expect(home.messages.slice(0, kept.length)).toEqual(kept);
    await after.close();
  });

  it('a journal cut without a snapshot is damaged by what its last writer and the listing knew', async () => {
    const home = await sessionOnDisk(6);
    expect(existsSync(path.join(home.dir, 'snapshot.bin'))).toBe(false);
    const listedBefore = await cli(home, 'sessions', 'list', '--json');
    expect(listedBefore.code).toBe(0);
    const bytes = readFileSync(home.journal);
    // Cut at a record boundary: nothing torn, the journal just looks shorter.
    truncateSync(home.journal, lineStart(bytes, 3));
    const engine = engineAt(home.home);
    await expect(engine.readSession(home.id)).rejects.toThrow(/last writer left it at event \d+: it was cut/);
    await expect(engine.openSession(home.id)).rejects.toThrow(/it was cut/);
    await engine.close();
    const listed = JSON.parse((await cli(home, 'sessions', 'list', '--json')).stdout) as { status: string }[];
    expect(listed[0]?.status).toBe('damaged');
  });

  it('a damaged newline before the last record is reported, and repair restores it keeping every event', async () => {
    const home = await sessionOnDisk(4);
    const bytes = readFileSync(home.journal);
    const lastNewline = bytes.lastIndexOf(0x0a, bytes.length - 2);
    writeFileSync(
      home.journal,
      Buffer.concat([bytes.subarray(0, lastNewline), Buffer.from(' '), bytes.subarray(lastNewline + 1)]),
    );
    const engine = engineAt(home.home);
    const error = await engine.readSession(home.id).catch((caught: unknown) => caught);
    expect(JournalCorruptedError.isInstance(error) && error.offset).toBe(lastNewline);
    await engine.close();
    const repaired = JSON.parse((await cli(home, 'sessions', 'repair', home.id, '--json')).stdout) as {
      actions: string[];
    };
    expect(repaired.actions).toContain(`journal.jsonl: restore the damaged newline at byte ${lastNewline}`);
    const after = engineAt(home.home);
    expect(await contents(after, home.id)).toEqual(home.messages);
    await after.close();
  });
});

describe('header damage', () => {
  it('a flipped byte in header.json is found by repair and rebuilt from the journal', async () => {
    const home = await sessionOnDisk(2);
    const header = path.join(home.dir, 'header.json');
    const original = readFileSync(header);
    flip(header, 30);
    const verified = await cli(home, 'sessions', 'verify', home.id);
    expect(verified.code).toBe(65);
    expect(verified.stdout).toContain('header.json');
    const repaired = await cli(home, 'sessions', 'repair', home.id);
    expect(repaired.stdout).toContain("header.json: rebuilt from the journal's first record");
    expect(readFileSync(header)).toEqual(original);
    expect((await cli(home, 'sessions', 'verify', home.id)).code).toBe(0);
  });

  it('a deleted header.json: the session still shows, is then listed as damaged, and repair rewrites it', async () => {
    const home = await sessionOnDisk(2);
    rmSync(path.join(home.dir, 'header.json'));
    // The session is found and shown (its header read from the journal); from then on it lists as damaged.
    const shown = await cli(home, 'sessions', 'show', home.id, '--json');
    expect(shown.code).toBe(0);
    const listed = await cli(home, 'sessions', 'list');
    expect(listed.stdout).toContain('damaged');
    expect(listed.stderr).toContain(`conclave sessions repair ${home.id}`);
    expect((await cli(home, 'sessions', 'repair', home.id)).code).toBe(0);
    expect(existsSync(path.join(home.dir, 'header.json'))).toBe(true);
    const relisted = JSON.parse((await cli(home, 'sessions', 'list', '--json')).stdout) as { status: string }[];
    expect(relisted[0]?.status).not.toBe('damaged');
  });

  it('a deleted header.json of a session whose first record holds its set-up too: shown, and rebuilt by repair', async () => {
    const task: EventInput = { type: 'message-added', message: { role: 'user', content: 'the task' } };
    const home = await sessionOnDisk(2, 1000, [task]);
    const header = path.join(home.dir, 'header.json');
    const original = readFileSync(header);
    rmSync(header);
    const shown = await cli(home, 'sessions', 'show', home.id, '--json');
    expect(shown.code).toBe(0);
    const repaired = await cli(home, 'sessions', 'repair', home.id);
    expect(repaired.stdout).toContain("header.json: rebuilt from the journal's first record");
    expect(readFileSync(header)).toEqual(original);
    expect((await cli(home, 'sessions', 'verify', home.id)).code).toBe(0);
  });

  it("a journal that belongs to another session is refused, not read as this one's", async () => {
    const home = await sessionOnDisk(2);
    const engine = engineAt(home.home);
    const other = await engine.createSession({ title: 'other', mode: 'custom' });
    await other.close();
    writeFileSync(home.journal, readFileSync(path.join(home.home, 'sessions', other.id, 'journal.jsonl')));
    await expect(engine.readSession(home.id)).rejects.toThrow(`belongs to session ${other.id}`);
    await engine.close();
  });

  for (const damage of ['empty', 'missing'] as const) {
    it(`an ${damage} journal never makes the session vanish: listed as damaged, repair rebuilds its creation`, async () => {
      const home = await sessionOnDisk(2);
      if (damage === 'empty') writeFileSync(home.journal, '');
      else rmSync(home.journal);
      const listed = JSON.parse((await cli(home, 'sessions', 'list', '--json')).stdout) as {
        id: string;
        status: string;
        title: string;
      }[];
      expect(listed).toEqual([expect.objectContaining({ id: home.id, status: 'damaged', title: 'integrity' })]);
      expect((await cli(home, 'sessions', 'repair', home.id)).code).toBe(0);
      const engine = engineAt(home.home);
      const state = await engine.readSession(home.id);
      expect(state.header.title).toBe('integrity');
      await engine.close();
    });
  }
});

describe('a journal emptied or deleted under a snapshot', () => {
  interface Summary {
    id: string;
    title: string;
    status: string;
    messageCount: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number | null;
  }

  /** A discussion run by the CLI with a snapshot every 10 events, and the listing summary its journal held at the snapshot. */
  async function discussionOnDisk() {
    const root = temporaryDirectory();
    const home = path.join(root, 'home');
    const cwd = path.join(root, 'work');
    mkdirSync(cwd);
    mkdirSync(home);
    writeFileSync(path.join(home, 'config.yaml'), 'checkpoint:\n  snapshotEvery: 10\n');
    const run = await runConclave(['Should we adopt a four day week'], { home, cwd });
    expect(run.code).toBe(0);
    const [listed] = JSON.parse((await runConclave(['sessions', 'list', '--json'], { home, cwd })).stdout) as Summary[];
    const id = listed?.id ?? '';
    const dir = path.join(home, 'sessions', id);
    const journal = path.join(dir, 'journal.jsonl');
    const snapshotSeq = Number(/"seq":(\d+)/.exec(readFileSync(path.join(dir, 'snapshot.bin'), 'latin1'))?.[1]);
    const records = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const atSnapshot = records.find((record) => record.last === snapshotSeq)?.summary as Summary;
    const shown = JSON.parse((await runConclave(['sessions', 'show', id, '--json'], { home, cwd })).stdout) as {
      messages: { content: string; seq?: number }[];
    };
    const session: Home = { home, cwd, id, dir, journal, messages: shown.messages.map((message) => message.content) };
    return { home: session, snapshotSeq, lastSeq: records.at(-1)?.last as number, atSnapshot };
  }

  for (const damage of ['emptied', 'deleted'] as const) {
    it(`${damage}: repair keeps the state the snapshot proves, says what it rebuilt and lost, and the session lists, opens and resumes`, async () => {
      const { home, snapshotSeq, lastSeq, atSnapshot } = await discussionOnDisk();
      expect(snapshotSeq).toBeGreaterThan(10);
      expect(lastSeq).toBeGreaterThan(snapshotSeq);
      expect(atSnapshot.messageCount).toBeGreaterThan(0);
      if (damage === 'emptied') writeFileSync(home.journal, '');
      else rmSync(home.journal);

      const dryRun = await cli(home, 'sessions', 'repair', home.id, '--dry-run');
      expect(dryRun.stdout).toContain(`would keep events 1..${snapshotSeq}`);
      expect(dryRun.stdout).toContain(
        `the state after event ${snapshotSeq} (messages, usage, status) is rebuilt from snapshot.bin; events 2..${snapshotSeq - 1} themselves are recorded as lost`,
      );
      expect(dryRun.stdout).toContain(`events ${snapshotSeq + 1}..${lastSeq} cannot be kept`);
      expect(dryRun.stdout).not.toContain('snapshot.bin: remove');

      const repaired = JSON.parse((await cli(home, 'sessions', 'repair', home.id, '--json')).stdout) as {
        keptSeq: number;
        droppedEvents: unknown;
      };
      expect(repaired).toMatchObject({
        keptSeq: snapshotSeq,
        droppedEvents: { first: snapshotSeq + 1, last: lastSeq },
      });
      // The kept history and one more event: the repair's record of the events it dropped.
      const verified = await cli(home, 'sessions', 'verify', home.id);
      expect(verified.stdout).toContain(`ok       ${home.id}  (${snapshotSeq + 1} events)`);
      expect(verified.code).toBe(0);

      // Listed as it stood at the snapshot: its title, usage and messages; a writer gone mid-run reads as interrupted.
      const [listed] = JSON.parse((await cli(home, 'sessions', 'list', '--json')).stdout) as Summary[];
      expect(listed).toMatchObject({
        id: home.id,
        title: atSnapshot.title,
        status: 'interrupted',
        messageCount: atSnapshot.messageCount,
        inputTokens: atSnapshot.inputTokens,
        outputTokens: atSnapshot.outputTokens,
        costUsd: atSnapshot.costUsd,
      });
      expect(atSnapshot.inputTokens).toBeGreaterThan(0);
      const shown = JSON.parse((await cli(home, 'sessions', 'show', home.id, '--json')).stdout) as {
        messages: { content: string }[];
      };
      const kept = shown.messages.map((message) => message.content);
      expect(kept).toEqual(home.messages.slice(0, atSnapshot.messageCount));

      const resumed = await cli(home, '--resume', home.id, '--yes');
      expect(resumed.code).toBe(0);
      const after = JSON.parse((await cli(home, 'sessions', 'show', home.id, '--json')).stdout) as {
        status: string;
        messages: { content: string }[];
      };
      expect(after.status).toBe('completed');
      expect(after.messages.slice(0, kept.length).map((message) => message.content)).toEqual(kept);
      expect(after.messages.length).toBeGreaterThan(kept.length);
      expect((await cli(home, 'sessions', 'verify', home.id)).code).toBe(0);
    });
  }
});

describe('lease folder', () => {
  it('a lease folder replaced by a symlink is refused, and nothing outside is written or removed', async () => {
    const home = await sessionOnDisk(1);
    const outside = path.join(path.dirname(home.home), 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'epoch-0000000001'), 'not a lease');
    rmSync(path.join(home.dir, 'lease'), { recursive: true });
    symlinkSync(outside, path.join(home.dir, 'lease'));
    const engine = engineAt(home.home);
    await expect(engine.openSession(home.id)).rejects.toSatisfy((error) => StoreIoError.isInstance(error));
    await expect(engine.openSession(home.id)).rejects.toThrow(/symlink/);
    await engine.close();
    expect(readdirSync(outside)).toEqual(['epoch-0000000001']);
    expect(readFileSync(path.join(outside, 'epoch-0000000001'), 'utf8')).toBe('not a lease');
  });
});

describe('every session file deleted, emptied, replaced by a directory or by a symlink', () => {
  const files = ['header.json', 'journal.jsonl', 'snapshot.bin', '../../index/summaries.json'] as const;
  const damages = ['delete', 'empty', 'directory', 'symlink'] as const;
  for (const name of files) {
    for (const damage of damages) {
      it(`${path.basename(name)} ${damage}: listed, a typed error or the session, then repair reaches a provable prefix`, async () => {
        const home = await sessionOnDisk(9, 8);
        const file = path.join(home.dir, name);
        const outside = path.join(path.dirname(home.home), 'outside-file');
        writeFileSync(outside, readFileSync(file));
        rmSync(file, { force: true });
        if (damage === 'empty') writeFileSync(file, '');
        if (damage === 'directory') mkdirSync(file);
        if (damage === 'symlink') symlinkSync(outside, file);

        const engine = engineAt(home.home, 8);
        const listed = await engine.listSessions();
        expect(listed.map((summary) => summary.id)).toContain(home.id);
        try {
          expect(await contents(engine, home.id)).toEqual(home.messages);
        } catch (error) {
          expect(ConclaveError.isInstance(error)).toBe(true);
          expect([65, 66]).toContain(exitCodeFor(error));
        }
        const report = await engine.store.repair?.(home.id);
        await engine.close();
        const after = engineAt(home.home, 8);
        const kept = await contents(after, home.id);
        expect(home.messages.slice(0, kept.length)).toEqual(kept);
        // Derived files are rebuilt without a trace; the journal's loss keeps what the snapshot proves
        // (here its last event: every message), and says so.
        expect(kept).toEqual(home.messages);
        if (name === 'journal.jsonl')
          expect(report?.actions?.some((action) => action.includes('is rebuilt from snapshot.bin'))).toBe(true);
        expect(readFileSync(outside).length).toBeGreaterThan(0);
        await after.close();
      });
    }
  }
});
