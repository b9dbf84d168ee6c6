// Encryption at rest on PostgreSQL (docs/encryption.md#postgresql): with a keyring, what the
// database holds (as `pg_dump` shows it) carries none of a session's words, a sealed row moved
// or changed is damage found and repaired as on the file store, listings show a session whose
// key is not held as encrypted, and `encrypt` seals a session written in the clear in one go.
import { type DataKey, EncryptionKeyUnavailableError, generateDataKey } from '@resume/core/encryption';
import { JournalCorruptedError, type SessionHeader, type SessionStore } from '@resume/core/spec';
import { messageEvent, testHeader, testSummary } from '@resume/core/testing';
import { describe, expect, it } from 'vitest';
import { announceSkip, dumpData } from './testing/postgres-cluster.js';
import { collect, postgres, useTestDatabase } from './testing/test-database.js';

const skipped = announceSkip(postgres);

const keyringOf = (current: DataKey | null, ...others: DataKey[]) => ({
  keys: Object.fromEntries([current, ...others].flatMap((key) => (key ? [[key.id, key.key]] : []))),
  current: current?.id ?? null,
});

/** The words of the session `writeSession` writes, none of which may reach the database in clear. */
const secrets = {
  title: 'Plan the orchard-irrigation rollout',
  workspace: '/home/ada/orchard-irrigation',
  messages: ['zebrafish lullaby 1', 'zebrafish lullaby 2', 'zebrafish lullaby 3', 'zebrafish lullaby 4'],
  state: 'folded-state marmalade',
  blob: 'tool output: cobalt harmonica',
};

/** A session with a header, two appends, a snapshot and a blob, all carrying `secrets`. */
async function writeSession(store: SessionStore): Promise<{ header: SessionHeader; blob: string }> {
  const header = testHeader({ title: secrets.title, workspaceDir: secrets.workspace });
  await store.create(header);
  const message = (seq: number) => messageEvent(seq, secrets.messages[seq - 1]);
  await store.append(header.id, {
    expectedSeq: 0,
    epoch: 0,
    events: [message(1), message(2)],
    summary: testSummary(header, 2),
  });
  await store.append(header.id, {
    expectedSeq: 2,
    epoch: 0,
    events: [message(3), message(4)],
    summary: testSummary(header, 4),
  });
  await store.putSnapshot(header.id, { seq: 4, formatVersion: 1, state: { note: secrets.state } });
  const blob = await store.putBlob(new TextEncoder().encode(secrets.blob));
  return { header, blob };
}

function expectNoSecrets(text: string): void {
  for (const word of [secrets.title, secrets.workspace, secrets.state, secrets.blob, ...secrets.messages]) {
    expect(text.includes(word), `"${word}" is in the database in clear`).toBe(false);
  }
  // Blobs are bytea: pg_dump prints them as hex.
  expect(text.includes(Buffer.from(secrets.blob).toString('hex'))).toBe(false);
}

describe.skipIf(!postgres.available)(`PostgreSQL store encryption at rest ${skipped}`, () => {
  const database = useTestDatabase();

  it('keeps no word of a session in clear in the database, and reads everything back with the key', async () => {
    const key = generateDataKey();
    const store = database.openStore({ encryption: keyringOf(key) });
    const { header, blob } = await writeSession(store);

    expectNoSecrets(await dumpData(postgres, database.url, store.schema));

    const again = database.openStore({ schema: store.schema, encryption: keyringOf(key) });
    const events = await collect(again.read(header.id));
    expect(events.map((event) => (event.type === 'message-added' ? event.message.content : ''))).toEqual(
      secrets.messages,
    );
    expect((await again.getHeader(header.id))?.title).toBe(secrets.title);
    expect((await again.getSummary(header.id))?.title).toBe(secrets.title);
    expect((await again.getSnapshot(header.id))?.state).toEqual({ note: secrets.state });
    expect(new TextDecoder().decode((await again.getBlob(blob)) ?? new Uint8Array())).toBe(secrets.blob);
    const listed = await again.list({ workspaceDir: secrets.workspace });
    expect(listed.map((summary) => [summary.id, summary.title])).toEqual([[header.id, secrets.title]]);
  });

  it('lists a session whose key is not held as encrypted, and refuses its content naming the key', async () => {
    const key = generateDataKey();
    const store = database.openStore({ encryption: keyringOf(key) });
    const { header } = await writeSession(store);

    const keyless = database.openStore({ schema: store.schema, encryption: keyringOf(generateDataKey()) });
    const [listed] = await keyless.list();
    expect(listed?.title).toBe(`encrypted (key ${key.id} not available)`);
    expect(listed?.locked).toEqual({ key: key.id });
    const error = await collect(keyless.read(header.id)).catch((caught: unknown) => caught);
    expect(EncryptionKeyUnavailableError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toContain(key.id);
    await expect(keyless.getHeader(header.id)).rejects.toThrow(key.id);
    await expect(keyless.verify(header.id)).rejects.toThrow(key.id);
  });

  it('lists a session whose id names no time (a LangGraph thread) as encrypted too, with its mode and dates', async () => {
    const key = generateDataKey();
    const store = database.openStore({ encryption: keyringOf(key) });
    const id = 'zzzzzzzzzzzzzzzzzzzzzz';
    const header = testHeader({ id, mode: 'langgraph', title: secrets.title });
    await store.create(header);
    await store.append(id, { expectedSeq: 0, epoch: 0, events: [messageEvent(1)], summary: testSummary(header, 1) });
    const keyless = database.openStore({ schema: store.schema });
    const [listed] = await keyless.list();
    expect(listed).toMatchObject({
      id,
      title: `encrypted (key ${key.id} not available)`,
      mode: 'langgraph',
      createdAt: header.createdAt,
      lastSeq: 1,
      locked: { key: key.id },
    });
  });

  it('finds a changed byte or a moved row as damage, and repairs to the longest intact prefix', async () => {
    const key = generateDataKey();
    const store = database.openStore({ encryption: keyringOf(key) });
    const { header } = await writeSession(store);
    const pool = database.openPool();
    const events = `"${store.schema}".events`;
    // Seq 3's payload replaced by seq 4's: each row's checksum is computed again, so only the seal can tell.
    await pool.query(`UPDATE ${events} SET payload = (SELECT payload FROM ${events} WHERE seq = 4) WHERE seq = 3`);
    const { chainHash } = await import('./event-chain.js');
    const rows = await pool.query<{ seq: string; payload: string }>(
      `SELECT seq, payload::text AS payload FROM ${events} ORDER BY seq`,
    );
    let previous: string | null = null;
    for (const row of rows.rows) {
      previous = chainHash(header.id, previous, Number(row.seq), row.payload);
      await pool.query(`UPDATE ${events} SET hash = $1 WHERE seq = $2`, [previous, row.seq]);
    }
    await pool.query(`UPDATE "${store.schema}".sessions SET journal_hash = $1`, [previous]);

    const error = await collect(store.read(header.id)).catch((caught: unknown) => caught);
    expect(JournalCorruptedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`${store.schema}.events, seq 3`);
    expect((error as Error).message).toContain('authentication');
    const report = await store.verify(header.id);
    expect(report.problems.map((problem) => problem.file)).toContain(`PostgreSQL table ${store.schema}.events, seq 3`);

    const repaired = await store.repair(header.id);
    expect(repaired.keptSeq).toBe(2);
    const kept = await collect(store.read(header.id));
    expect(kept.map((event) => event.seq)).toEqual([1, 2]);
    expect((await store.getSummary(header.id))?.lastSeq).toBe(2);
    expectNoSecrets(
      await dumpData(postgres, database.url, store.schema).then((dump) => dump.split('damaged_rows')[0] ?? ''),
    );
  });

  it('refuses a sealed row copied from another session', async () => {
    const key = generateDataKey();
    const store = database.openStore({ encryption: keyringOf(key) });
    const first = await writeSession(store);
    const second = await writeSession(store);
    const pool = database.openPool();
    const events = `"${store.schema}".events`;
    await pool.query(
      `UPDATE ${events} SET payload = (SELECT payload FROM ${events} WHERE session_id = $1 AND seq = 1),
              hash = (SELECT hash FROM ${events} WHERE session_id = $1 AND seq = 1)
        WHERE session_id = $2 AND seq = 1`,
      [first.header.id, second.header.id],
    );
    const report = await store.verify(second.header.id);
    expect(report.problems[0]?.file).toBe(`PostgreSQL table ${store.schema}.events, seq 1`);
  });

  it('goes on sealing an encrypted session when no key is current, with the key it was sealed with', async () => {
    const key = generateDataKey();
    const store = database.openStore({ encryption: keyringOf(key) });
    const { header } = await writeSession(store);
    const reading = database.openStore({ schema: store.schema, encryption: keyringOf(null, key) });
    await collect(reading.read(header.id));
    await reading.append(header.id, {
      expectedSeq: 4,
      epoch: 0,
      events: [messageEvent(5, 'zebrafish lullaby 5')],
      summary: testSummary(header, 5),
    });
    const dump = await dumpData(postgres, database.url, store.schema);
    expect(dump).not.toContain('zebrafish lullaby 5');
    expect((await collect(reading.read(header.id))).length).toBe(5);
  });

  it('reads sessions written in the clear, and encrypt seals them in place (rekey moves them to a new key)', async () => {
    const plain = database.openStore();
    const { header, blob } = await writeSession(plain);
    const first = generateDataKey();
    const store = database.openStore({ schema: plain.schema, encryption: keyringOf(first) });
    expect((await collect(store.read(header.id))).length).toBe(4);
    expect(await store.keysOf(header.id)).toEqual([]);

    const report = await store.encrypt(header.id);
    expect(report).toEqual({ sessionId: header.id, key: first.id, records: 4, header: true, snapshot: true });
    const dump = await dumpData(postgres, database.url, store.schema);
    // Blobs written before keep the form they were written in (docs/encryption.md).
    expectNoSecrets(dump.replace(Buffer.from(secrets.blob).toString('hex'), ''));
    expect((await store.verify(header.id)).problems).toEqual([]);
    expect((await collect(store.read(header.id))).length).toBe(4);
    expect((await store.getSnapshot(header.id))?.state).toEqual({ note: secrets.state });
    expect(new TextDecoder().decode((await store.getBlob(blob)) ?? new Uint8Array())).toBe(secrets.blob);
    expect((await store.encrypt(header.id)).records).toBe(0);

    const second = generateDataKey();
    const rekeyed = database.openStore({ schema: plain.schema, encryption: keyringOf(second, first) });
    expect(await rekeyed.keysOf(header.id)).toEqual([first.id]);
    expect(await rekeyed.encrypt(header.id, { rekey: true })).toMatchObject({ key: second.id, records: 4 });
    expect(await rekeyed.keysOf(header.id)).toEqual([second.id]);
    const onlySecond = database.openStore({ schema: plain.schema, encryption: keyringOf(second) });
    expect((await collect(onlySecond.read(header.id))).length).toBe(4);
    expect((await onlySecond.list())[0]?.title).toBe(secrets.title);
    // The conversion was the session's writer: a new writer takes the lease after it.
    const lease = await rekeyed.acquireLease(header.id, { holder: { pid: process.pid, host: 'here' } });
    await rekeyed.append(header.id, {
      expectedSeq: 4,
      epoch: lease.epoch,
      events: [messageEvent(5)],
      summary: testSummary(header, 5),
    });
    await lease.release();
    expect((await onlySecond.verify(header.id)).problems).toEqual([]);
  });

  it('changes nothing when a session to encrypt is damaged, and says to repair it', async () => {
    const plain = database.openStore();
    const { header } = await writeSession(plain);
    const pool = database.openPool();
    await pool.query(
      `UPDATE "${plain.schema}".events SET payload = replace(payload::text, 'lullaby 2', 'lullaby X')::json WHERE seq = 2`,
    );
    const rows = () =>
      pool.query(
        `SELECT s.header::text, s.summary::text, s.journal_hash, e.seq, e.payload::text, e.hash, n.state::text
           FROM "${plain.schema}".sessions s JOIN "${plain.schema}".events e ON e.session_id = s.id
           LEFT JOIN "${plain.schema}".snapshots n ON n.session_id = s.id ORDER BY e.seq`,
      );
    const before = (await rows()).rows;
    const store = database.openStore({ schema: plain.schema, encryption: keyringOf(generateDataKey()) });
    await expect(store.encrypt(header.id)).rejects.toThrow(/repair the session before encrypting it.*events, seq 2/);
    expect((await rows()).rows).toEqual(before);
  });
});
