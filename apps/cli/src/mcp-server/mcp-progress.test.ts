import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ProgressRequest, reportProgress } from './mcp-progress.js';

const requestWith = (progressToken?: string) => {
  const sent: { progress: number; message: string }[] = [];
  const request: ProgressRequest = {
    ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
    sendNotification: async ({ params }) => {
      sent.push({ progress: params.progress, message: params.message });
    },
  };
  return { request, sent };
};

describe('progress of a tool call that runs a session', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('says the run is still going while a long model call journals nothing, then stops', () => {
    const { request, sent } = requestWith('token-1');
    const reporter = reportProgress(request, 15_000);
    vi.advanceTimersByTime(31_000);
    expect(sent).toEqual([
      { progress: 1, message: 'still running (15 s)' },
      { progress: 2, message: 'still running (30 s)' },
    ]);
    reporter.stop();
    vi.advanceTimersByTime(60_000);
    expect(sent).toHaveLength(2);
  });

  it('sends nothing, and watches nothing, when the client gave no progress token', () => {
    const { request, sent } = requestWith();
    const reporter = reportProgress(request, 15_000);
    expect(reporter.onAppended).toBeUndefined();
    vi.advanceTimersByTime(60_000);
    expect(sent).toEqual([]);
  });
});
