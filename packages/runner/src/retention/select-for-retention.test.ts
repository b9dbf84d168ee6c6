import type { SessionStatus, SessionSummary } from '@resume/core/spec';
import { testHeader, testSummary } from '@resume/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ambiguousDuration, parseDurationDays, selectForRetention } from './select-for-retention.js';

const now = new Date('2026-06-30T12:00:00.000Z');
const day = 24 * 60 * 60 * 1000;

function summary(index: number, daysOld: number, status: SessionStatus = 'completed', bytes = 1000): SessionSummary {
  const updatedAt = new Date(now.getTime() - daysOld * day).toISOString();
  const header = testHeader({
    id: `0000000000${String(index).padStart(2, '0')}abcdefghjk`,
    title: `session ${index}`,
    mode: 'discussion',
    workspaceDir: '/w',
    createdAt: updatedAt,
  });
  return testSummary(header, 3, { status, messageCount: 1, bytes });
}

describe('selectForRetention', () => {
  it('removes sessions older than maxAgeDays, newest kept', () => {
    const sessions = [summary(1, 1), summary(2, 40), summary(3, 10)];
    const selection = selectForRetention(sessions, { maxAgeDays: 30 }, now);
    expect(selection.remove.map((entry) => entry.session.title)).toEqual(['session 2']);
    expect(selection.remove[0]?.reason).toMatch(/40 days/);
  });

  it('never removes running sessions, and interrupted ones only when asked', () => {
    const sessions = [summary(1, 50, 'running'), summary(2, 50, 'interrupted'), summary(3, 50, 'failed')];
    expect(selectForRetention(sessions, { maxAgeDays: 30 }, now).remove.map((entry) => entry.session.status)).toEqual([
      'failed',
    ]);
    const asked = selectForRetention(sessions, { maxAgeDays: 30, statuses: ['interrupted', 'running', 'failed'] }, now);
    expect(asked.remove.map((entry) => entry.session.status).sort()).toEqual(['failed', 'interrupted']);
  });

  it('keeps the newest maxSessions and honours minKeep over every limit', () => {
    const sessions = [summary(1, 1), summary(2, 2), summary(3, 3), summary(4, 400)];
    expect(selectForRetention(sessions, { maxSessions: 2 }, now).remove.map((entry) => entry.session.title)).toEqual([
      'session 3',
      'session 4',
    ]);
    expect(
      selectForRetention(sessions, { maxAgeDays: 0.5, minKeep: 3 }, now).remove.map((entry) => entry.session.title),
    ).toEqual(['session 4']);
  });

  it('removes the oldest sessions beyond maxBytes', () => {
    const sessions = [summary(1, 1, 'completed', 600), summary(2, 2, 'completed', 600), summary(3, 3, 'completed', 10)];
    expect(selectForRetention(sessions, { maxBytes: 1000 }, now).remove.map((entry) => entry.session.title)).toEqual([
      'session 2',
      'session 3',
    ]);
  });

  it('archives finished sessions past archiveAfterDays that are not removed', () => {
    const sessions = [summary(1, 1), summary(2, 20), summary(3, 20, 'interrupted'), summary(4, 100)];
    const selection = selectForRetention(sessions, { archiveAfterDays: 14, maxAgeDays: 90 }, now);
    expect(selection.archive.map((entry) => entry.session.title)).toEqual(['session 2']);
    expect(selection.remove.map((entry) => entry.session.title)).toEqual(['session 4']);
  });

  it('never selects running sessions or more than allowed by minKeep (property)', () => {
    const statusArbitrary = fc.constantFrom<SessionStatus>('running', 'interrupted', 'completed', 'failed');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), statusArbitrary, fc.integer({ min: 0, max: 5000 })), {
          maxLength: 40,
        }),
        fc.record({
          maxAgeDays: fc.option(fc.integer({ min: 0, max: 365 })),
          maxSessions: fc.option(fc.integer({ min: 1, max: 30 })),
          maxBytes: fc.option(fc.integer({ min: 1, max: 50_000 })),
          minKeep: fc.option(fc.integer({ min: 0, max: 10 })),
          archiveAfterDays: fc.option(fc.integer({ min: 0, max: 365 })),
        }),
        (rows, policy) => {
          const sessions = rows.map(([age, status, bytes], index) => summary(index, age, status, bytes));
          const { remove, archive } = selectForRetention(sessions, policy, now);
          const removedIds = new Set(remove.map((entry) => entry.session.id));
          expect(remove.every((entry) => entry.session.status !== 'running')).toBe(true);
          expect(remove.every((entry) => entry.session.status !== 'interrupted')).toBe(true);
          expect(archive.every((entry) => !removedIds.has(entry.session.id))).toBe(true);
          expect(remove.length).toBeLessThanOrEqual(Math.max(0, sessions.length - (policy.minKeep ?? 0)));
        },
      ),
    );
  });
});

describe('parseDurationDays', () => {
  it('reads days, weeks, hours and bare numbers', () => {
    expect(parseDurationDays('30d')).toBe(30);
    expect(parseDurationDays('30')).toBe(30);
    expect(parseDurationDays('2w')).toBe(14);
    expect(parseDurationDays('12h')).toBe(0.5);
    expect(parseDurationDays('soon')).toBeNull();
  });

  it('reads minutes as min and refuses an ambiguous m, saying what to write', () => {
    expect(parseDurationDays('10min')).toBe(10 / (24 * 60));
    expect(parseDurationDays('1m')).toBeNull();
    expect(ambiguousDuration('1m')).toBe(
      '"1m" is ambiguous (minutes or months?): write 1min for minutes, or 30d for months',
    );
    expect(ambiguousDuration('30d')).toBeNull();
  });

  it('says ages and limits in words, never as a fraction of a day', () => {
    const selection = selectForRetention(
      [summary(1, 2 / 24), summary(2, 45 / (24 * 60))],
      { maxAgeDays: 1 / 24 / 6 },
      now,
    );
    expect(selection.remove.map((entry) => entry.reason)).toEqual([
      'not updated for 45 minutes (limit 10 minutes)',
      'not updated for 2 hours (limit 10 minutes)',
    ]);
  });
});
