// A LangGraph thread is one session, whose id is derived from the thread_id: any process
// finds a thread's session without an index. 22 characters of the session id alphabet
// from sha256 (110 bits); the session header records the thread_id, and a header naming
// another thread is refused rather than mixed up.
import { createHash } from 'node:crypto';

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';

export function threadSessionId(threadId: string): string {
  const digest = createHash('sha256').update(`langgraph-thread\u0000${threadId}`, 'utf8').digest();
  let id = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of digest) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && id.length < 22) {
      id += alphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
    if (id.length === 22) break;
  }
  return id;
}
