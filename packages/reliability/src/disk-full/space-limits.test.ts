// Space limits (limits.maxHomeBytes, limits.maxSessionBytes): a checkpoint that would take the
// home or a session past its limit is refused like a full disk, before anything of it is
// written: a typed error (exit 74) naming what uses the space and what frees it; everything
// acknowledged before is kept; once space is freed or the limit raised the session resumes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine, type Engine, type Session } from '@resume/core';
import { StoreQuotaError } from '@resume/core/spec';
import { ExitCode, exitCodeFor } from '@resume/runner/exit-codes';
import { createFsStore } from '@resume/storage-fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const KB = 1024;
let home: string;

const engineWith = (quota: { maxHomeBytes?: number; maxSessionBytes?: number }): Engine =>
  createEngine({ store: createFsStore({ dir: home, quota }) });

/** Checkpoints of 2 KB each until one is refused; what was acknowledged, and the error. */
async function fillUp(session: Session, rounds: number) {
  const acknowledged: string[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    const content = `round ${round} ${'x'.repeat(2 * KB)}`;
    session.addMessage({ role: 'user', content });
    try {
      await session.checkpoint(`round ${round}`);
    } catch (error) {
      return { acknowledged, error };
    }
    acknowledged.push(content);
  }
  return { acknowledged, error: null };
}

const messagesOf = async (engine: Engine, id: string) =>
  (await engine.readSession(id)).messages.map((message) => message.content);

describe('space limits', () => {
  beforeEach(async () => {
    home = await mkdtemp(path.join(tmpdir(), 'conclave-space-limits-'));
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('stops a session at its limit with what in it uses the space, and resumes once the limit is raised', async () => {
    const engine = engineWith({ maxSessionBytes: 20 * KB });
    const session = await engine.createSession({ title: 'grows', mode: 'custom' });
    const { acknowledged, error } = await fillUp(session, 50);
    await session.close().catch(() => {});
    await engine.close();

    expect(StoreQuotaError.isInstance(error), String(error)).toBe(true);
    const refused = error as StoreQuotaError;
    expect(exitCodeFor(refused)).toBe(ExitCode.storeFull);
    expect(refused.limit).toBe('maxSessionBytes');
    expect(refused.message).toContain(`Session ${session.id}`);
    expect(refused.message).toContain('limits.maxSessionBytes (20 KB)');
    expect(refused.message).toMatch(/journal \d/);
    expect(refused.message).toContain('raise limits.maxSessionBytes');
    expect(acknowledged.length).toBeGreaterThan(3);
    expect(acknowledged.length).toBeLessThan(10);

    // Nothing acknowledged lost, nothing of the refused checkpoint written.
    const reader = engineWith({});
    expect(await messagesOf(reader, session.id)).toEqual(acknowledged);
    await reader.close();

    const raised = engineWith({ maxSessionBytes: 1024 * KB });
    const resumed = await raised.openSession(session.id, { replay: 'keyed' });
    resumed.addMessage({ role: 'user', content: 'after the limit was raised' });
    await resumed.checkpoint();
    await resumed.close();
    expect(await messagesOf(raised, session.id)).toEqual([...acknowledged, 'after the limit was raised']);
    await raised.close();
  });

  it('stops at the home limit naming the biggest sessions, and resumes once another session is deleted', async () => {
    const filler = engineWith({});
    const big = await filler.createSession({ title: 'big', mode: 'custom' });
    await fillUp(big, 20);
    await big.close();
    await filler.close();

    const engine = engineWith({ maxHomeBytes: 100 * KB });
    const session = await engine.createSession({ title: 'second', mode: 'custom' });
    const { acknowledged, error } = await fillUp(session, 50);
    expect(StoreQuotaError.isInstance(error), String(error)).toBe(true);
    const refused = error as StoreQuotaError;
    expect(refused.limit).toBe('maxHomeBytes');
    expect(refused.message).toContain(`The data home ${refused.location}`);
    expect(refused.message).toContain(`The biggest sessions: ${big.id}`);
    expect(refused.usedBytes).toBeLessThanOrEqual(100 * KB);

    await session.close().catch(() => {});
    await engine.close();

    // Space is freed: the next run, under the same limit, resumes where the session stopped.
    const cleaner = engineWith({});
    await cleaner.deleteSession(big.id);
    await cleaner.close();
    const again = engineWith({ maxHomeBytes: 100 * KB });
    const resumed = await again.openSession(session.id, { replay: 'keyed' });
    resumed.addMessage({ role: 'user', content: 'after the cleanup' });
    await resumed.checkpoint();
    await resumed.close();
    expect(await messagesOf(again, session.id)).toEqual([...acknowledged, 'after the cleanup']);
    await again.close();
  });
});
