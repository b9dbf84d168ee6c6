// The announcements of appends (watch.ts): sent at once after a quiet moment, gathered while one
// is on its way and for a short pause after it. No server needed: the NOTIFY is a recorded call.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ANNOUNCE_PAUSE_MS, createAppendAnnouncer } from './watch.js';

afterEach(() => vi.useRealTimers());

function recordingAnnouncer() {
  const sent: string[][] = [];
  const announcer = createAppendAnnouncer(async (payloads) => {
    sent.push(payloads);
  });
  return { sent, announcer };
}

describe('createAppendAnnouncer', () => {
  it('sends the first announcement at once, and those of a tight loop of appends together after a pause', async () => {
    vi.useFakeTimers();
    const { sent, announcer } = recordingAnnouncer();
    announcer.announce('seq 1');
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual([['seq 1']]);
    // Appends a millisecond apart, as a fast graph checkpoints: none goes alone.
    for (let seq = 2; seq <= 4; seq += 1) {
      await vi.advanceTimersByTimeAsync(1);
      announcer.announce(`seq ${seq}`);
    }
    expect(sent).toEqual([['seq 1']]);
    await vi.advanceTimersByTimeAsync(ANNOUNCE_PAUSE_MS);
    expect(sent).toEqual([['seq 1'], ['seq 2', 'seq 3', 'seq 4']]);
    const settled = announcer.settled();
    await vi.advanceTimersByTimeAsync(ANNOUNCE_PAUSE_MS);
    await settled;
  });

  it('sends an announcement after a quiet moment at once, and settles once everything was sent', async () => {
    vi.useFakeTimers();
    const { sent, announcer } = recordingAnnouncer();
    announcer.announce('first');
    await vi.advanceTimersByTimeAsync(ANNOUNCE_PAUSE_MS * 4);
    announcer.announce('after a while');
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual([['first'], ['after a while']]);
    announcer.announce('during the pause');
    const settled = announcer.settled().then(() => 'settled');
    await vi.advanceTimersByTimeAsync(ANNOUNCE_PAUSE_MS);
    expect(sent.at(-1)).toEqual(['during the pause']);
    await vi.advanceTimersByTimeAsync(ANNOUNCE_PAUSE_MS);
    expect(await settled).toBe('settled');
  });

  it('goes on after a NOTIFY that failed', async () => {
    const sent: string[][] = [];
    let calls = 0;
    const announcer = createAppendAnnouncer(async (payloads) => {
      calls += 1;
      if (calls === 1) throw new Error('connection lost');
      sent.push(payloads);
    }, 1);
    announcer.announce('lost');
    await announcer.settled();
    announcer.announce('next');
    await announcer.settled();
    expect(sent).toEqual([['next']]);
  });
});
