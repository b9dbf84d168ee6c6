// The LangGraph thread a session holds, as its checkpointer recorded it in the header.
import type { SessionHeader } from '@resume/core/spec';

/** The thread_id of a LangGraph thread's session; null for any other session. */
export function threadIdOf(header: SessionHeader): string | null {
  return header.mode === 'langgraph' && typeof header.options.threadId === 'string' ? header.options.threadId : null;
}
