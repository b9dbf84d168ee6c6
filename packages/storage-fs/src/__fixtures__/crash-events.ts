// Deterministic events for the crash test: the content of an event follows from its
// seq, so the parent can check every byte of what survived.
import type { JournalEvent } from '@resume/core/spec';
import { messageEvent } from '@resume/core/testing';

export function crashEvent(seq: number): JournalEvent {
  return messageEvent(seq, `event ${seq} `.repeat(20), { role: 'assistant', speaker: 'writer' });
}
