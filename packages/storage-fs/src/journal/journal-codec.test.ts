import { JournalCorruptedError, type JournalEvent } from '@resume/core/spec';
import { messageEvent, testSummary } from '@resume/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeBatch, lastRecordInTail, scanJournal } from './journal-codec.js';

const sessionId = '0000000000000000000000';
const file = '/store/sessions/x/journal.jsonl';

/** A journal of batches with the given message contents; returns the bytes and each batch's end offset. */
function journal(batches: string[][]): { bytes: Buffer; ends: number[]; events: JournalEvent[][] } {
  let seq = 0;
  const lines: Buffer[] = [];
  const ends: number[] = [];
  const events: JournalEvent[][] = [];
  let length = 0;
  for (const contents of batches) {
    const batch = contents.map((content) => messageEvent(++seq, content));
    const line = encodeBatch({ epoch: 1, events: batch, summary: testSummary(sessionId, seq) });
    lines.push(line);
    length += line.length;
    ends.push(length);
    events.push(batch);
  }
  return { bytes: Buffer.concat(lines), ends, events };
}

const scan = (bytes: Buffer) => scanJournal(bytes, { sessionId, file });

describe('journal codec', () => {
  it('round-trips any batches of events, summary included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string({ unit: 'binary', maxLength: 80 }), { minLength: 1, maxLength: 3 }), {
          minLength: 1,
          maxLength: 4,
        }),
        (batches) => {
          const { bytes, events } = journal(batches);
          const result = scanJournal(bytes, { sessionId, file, summaryWanted: true });
          expect(result.events).toEqual(events.flat());
          expect(result.torn).toBeNull();
          expect(result.validLength).toBe(bytes.length);
          expect(result.lastSummary?.lastSeq).toBe(events.flat().length);
          expect(lastRecordInTail(bytes, true)).toMatchObject({ lastSeq: events.flat().length, epoch: 1 });
        },
      ),
      { numRuns: 40 },
    );
  });

  it('reads events holding the text and the shape of the summary member that ends a record', () => {
    const marker = '],"summary":{';
    const at = '2026-01-01T00:00:00.000Z';
    const events: JournalEvent[] = [
      messageEvent(1, `${marker}"lastSeq":99}`),
      {
        type: 'graph-checkpoint-saved',
        seq: 2,
        at,
        namespace: '',
        checkpointId: 'c1',
        parentCheckpointId: null,
        // A member named summary after an array, inside the event.
        data: { values: [1, marker], summary: { lastSeq: 99, note: `${marker}` } },
      },
    ];
    const bytes = Buffer.concat([
      encodeBatch({ epoch: 1, events: [events[0]!], summary: testSummary(sessionId, 1, { title: marker }) }),
      encodeBatch({ epoch: 1, events: [events[1]!], summary: testSummary(sessionId, 2) }),
    ]);
    const result = scanJournal(bytes, { sessionId, file, summaryWanted: true });
    expect(result.events).toEqual(events);
    expect(result.lastSummary).toMatchObject({ lastSeq: 2 });
    expect(scanJournal(bytes, { sessionId, file, fromSeq: 2 }).events).toEqual([events[1]]);
  });

  it('writes one line of JSON per batch that ordinary tools can read', () => {
    const { bytes } = journal([['a', 'b'], ['c']]);
    const lines = bytes.toString('utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0] ?? '') as { crc: string; first: number; last: number; events: unknown[] };
    expect(first).toMatchObject({ first: 1, last: 2 });
    expect(first.crc).toMatch(/^[0-9a-f]{8}$/);
    expect(first.events).toHaveLength(2);
  });

  it('recovers exactly the committed prefix when the journal is cut at any byte of its last batches', () => {
    const { bytes, ends, events } = journal([
      ['one'],
      ['two', 'three'],
      ['four ✓'],
      ['five', 'six', 'seven'],
      ['eight'],
    ]);
    const lastBatchesStart = ends[1] ?? 0;
    for (let length = lastBatchesStart; length <= bytes.length; length += 1) {
      const committed = ends.filter((end) => end <= length).length;
      const result = scan(bytes.subarray(0, length));
      expect(result.events).toEqual(events.slice(0, committed).flat());
      expect(result.validLength).toBe(ends[committed - 1] ?? 0);
      expect(result.torn === null).toBe(length === result.validLength);
    }
  });

  it('detects every single-byte change in its last batches and never returns changed data', () => {
    const { bytes, ends, events } = journal([['one'], ['two', 'three'], ['four'], ['five ✓', 'six']]);
    const original = events.flat();
    for (let position = ends[1] ?? 0; position < bytes.length; position += 1) {
      for (const mask of [0x01, 0x20, 0x80, 0xff]) {
        const damaged = Buffer.from(bytes);
        damaged[position] = (damaged[position] ?? 0) ^ mask;
        let result: ReturnType<typeof scan>;
        try {
          result = scan(damaged);
        } catch (error) {
          expect(JournalCorruptedError.isInstance(error)).toBe(true);
          continue;
        }
        // Accepted only as a torn tail: what comes back is an unchanged prefix and the damage is cut.
        expect(result.torn).not.toBeNull();
        expect(result.validLength).toBeLessThanOrEqual(position);
        expect(result.events).toEqual(original.slice(0, result.events.length));
      }
    }
  });

  it('reports damage before the last record with the file and byte offset', () => {
    const { bytes, ends } = journal([['one'], ['two'], ['three']]);
    const damaged = Buffer.from(bytes);
    const offset = (ends[0] ?? 0) + 30;
    damaged[offset] = (damaged[offset] ?? 0) ^ 0x04;
    try {
      scan(damaged);
      expect.unreachable('the damage was not detected');
    } catch (error) {
      expect(JournalCorruptedError.isInstance(error)).toBe(true);
      if (JournalCorruptedError.isInstance(error)) {
        expect(error.file).toBe(file);
        expect(error.offset).toBe(ends[0]);
        expect(error.message).toContain(`byte ${ends[0]}`);
      }
    }
  });

  it('refuses records that skip or repeat seqs', () => {
    const first = encodeBatch({ epoch: 1, events: [messageEvent(1, 'a')], summary: testSummary(sessionId, 1) });
    const skipped = encodeBatch({ epoch: 1, events: [messageEvent(3, 'c')], summary: testSummary(sessionId, 3) });
    expect(() => scan(Buffer.concat([first, skipped]))).toThrow(/3\.\.3 but 2 was next/);
    expect(() => scan(Buffer.concat([first, first]))).toThrow(JournalCorruptedError);
  });

  it('finds the last committed record from the end of the file alone', () => {
    const { bytes, ends } = journal([['one'], ['two'], ['three']]);
    const torn = Buffer.concat([bytes, Buffer.from('{"crc":"0000')]);
    expect(lastRecordInTail(torn, true)).toMatchObject({ lastSeq: 3 });
    expect(lastRecordInTail(torn.subarray((ends[1] ?? 0) - 5), false)).toMatchObject({ lastSeq: 3 });
    expect(lastRecordInTail(torn.subarray((ends[2] ?? 0) - 5), false)).toBe('more');
    expect(lastRecordInTail(Buffer.alloc(0), true)).toBeNull();
  });
});
