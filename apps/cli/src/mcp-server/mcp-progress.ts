// MCP progress notifications for a tool call that runs a session (`continue_session`): one for
// each model call, tool call and step the run journals, and one every `heartbeatMs` while
// nothing was journaled (a long model call), so a client that resets its timeout on progress
// (the SDK's `resetTimeoutOnProgress`) waits as long as the run makes progress. Only when the
// client asked for them with a progress token, as the protocol says.
import type { JournalEvent } from '@resume/core/spec';
import type { AppendListener } from '../context/observed-store.js';

export interface ProgressRequest {
  _meta?: { progressToken?: string | number };
  sendNotification(notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; message: string };
  }): Promise<void>;
}

export interface ProgressReporter {
  onAppended: AppendListener | undefined;
  stop(): void;
}

/** A long single model call still reports this often (well within a client's usual 60 s timeout). */
export const HEARTBEAT_MS = 15_000;

export function reportProgress(request: ProgressRequest, heartbeatMs = HEARTBEAT_MS): ProgressReporter {
  const token = request._meta?.progressToken;
  if (token === undefined) return { onAppended: undefined, stop: () => undefined };
  let progress = 0;
  const started = Date.now();
  const send = (message: string) => {
    progress += 1;
    // A client that went away is noticed by the transport; a lost notification changes nothing here.
    request
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } })
      .catch(() => undefined);
  };
  let heartbeat = setInterval(beat, heartbeatMs);
  function beat() {
    send(`still running (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  return {
    onAppended(sessionId, events) {
      const messages = events.flatMap((event) => progressMessage(event) ?? []);
      if (messages.length === 0) return;
      for (const message of messages) send(`session ${sessionId}: ${message}`);
      clearInterval(heartbeat);
      heartbeat = setInterval(beat, heartbeatMs);
    },
    stop: () => clearInterval(heartbeat),
  };
}

function progressMessage(event: JournalEvent): string | null {
  switch (event.type) {
    case 'session-created':
      return 'started';
    case 'usage-recorded':
      return `model call ${event.agent === null ? `of ${event.model}` : `by ${event.agent}`} done`;
    case 'tool-call-completed':
      return `tool ${event.name} ${event.isError ? 'answered with an error' : 'done'}`;
    case 'checkpoint-marked':
      return event.label === null ? null : `checkpoint ${event.label}`;
    case 'status-changed':
      return event.status === 'running' ? null : event.status;
    default:
      return null;
  }
}
