// What a model call was given, kept for traces that show prompts (the GenAI conventions'
// `gen_ai.input.messages`): with the runner's `capturePrompts` on, each call's system prompt and
// messages go to the store's content-addressed blobs and its `usage-recorded` event names the
// blob. The journal grows by one digest per call; calls given the same prompt share a blob.
// Rebuilding prompts from the journal instead would need every mode's prompt code, custom modes'
// too, and would say what today's code would send, not what was sent.
import { createRedactor } from '@resume/core';
import { lazySchema } from '@resume/core/lazy-schema';
import type { ChatMessage, JournalEvent, SessionStore } from '@resume/core/spec';
import { z } from 'zod';

export const promptCopySchema = lazySchema(() =>
  z.object({
    system: z.string().optional(),
    messages: z.array(
      z.object({
        role: z.string(),
        content: z.string(),
        speaker: z.string().nullable().optional(),
        toolCalls: z.array(z.object({ id: z.string(), name: z.string(), args: z.unknown() })).optional(),
        toolCallId: z.string().optional(),
      }),
    ),
  }),
);
export type PromptCopy = z.infer<typeof promptCopySchema>;

/** Keeps a call's prompt, scrubbed of the secrets of `env` and of known key shapes, and returns its blob's digest. */
export function promptKeeper(
  store: Pick<SessionStore, 'putBlob'>,
  env: Readonly<Record<string, string | undefined>>,
): (prompt: { system?: string; messages: ChatMessage[] }) => Promise<string> {
  const redactor = createRedactor({ env: { ...env } });
  return (prompt) => {
    const copy: PromptCopy = {
      ...(prompt.system !== undefined ? { system: prompt.system } : {}),
      messages: prompt.messages,
    };
    return store.putBlob(new TextEncoder().encode(JSON.stringify(redactor.redact(copy))));
  };
}

/**
 * Reads the prompt copies the events name into `into` (by digest), once each. A copy that is
 * missing or unreadable is left out: the span goes without its prompt.
 */
export async function readPromptCopies(
  events: Iterable<JournalEvent>,
  store: Pick<SessionStore, 'getBlob'>,
  into: Map<string, PromptCopy>,
): Promise<void> {
  for (const event of events) {
    if (event.type !== 'usage-recorded' || event.promptBlob === undefined || into.has(event.promptBlob)) continue;
    const content = await store.getBlob(event.promptBlob).catch(() => null);
    if (content === null) continue;
    try {
      const parsed = promptCopySchema.safeParse(JSON.parse(new TextDecoder().decode(content)));
      if (parsed.success) into.set(event.promptBlob, parsed.data);
    } catch {
      // Not JSON: not a prompt copy.
    }
  }
}
