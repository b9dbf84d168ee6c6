// zod schemas of the Chat Completions stream chunks this adapter reads (the documented
// `chat.completion.chunk` object). Lenient where OpenAI-compatible servers differ
// (nulls, missing ids), strict about what we rely on.
import { z } from 'zod';

const toolCallDeltaSchema = z.object({
  index: z.number().int().nonnegative(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z
    .object({
      name: z.string().nullish(),
      arguments: z.string().nullish(),
    })
    .nullish(),
});

export const chatCompletionChunkSchema = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        index: z.number().int().nonnegative().default(0),
        delta: z
          .object({
            role: z.string().nullish(),
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z.array(toolCallDeltaSchema).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .default([]),
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative(),
      completion_tokens: z.number().int().nonnegative(),
    })
    .nullish(),
});
export type ChatCompletionChunk = z.infer<typeof chatCompletionChunkSchema>;

export const modelListSchema = z.array(z.object({ id: z.string() }));
