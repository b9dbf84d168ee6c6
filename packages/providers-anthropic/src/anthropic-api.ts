// zod schemas of the Messages API stream events this adapter reads (the documented
// `message_start` … `message_stop` sequence). Unknown event and block types pass through
// as `other` so a newer API does not break an older adapter.
import { z } from 'zod';

const usageSchema = z.object({
  input_tokens: z.number().int().nonnegative().nullish(),
  output_tokens: z.number().int().nonnegative().nullish(),
  cache_creation_input_tokens: z.number().int().nonnegative().nullish(),
  cache_read_input_tokens: z.number().int().nonnegative().nullish(),
});

const messageStartSchema = z.object({
  type: z.literal('message_start'),
  message: z.object({ id: z.string().nullish(), model: z.string().nullish(), usage: usageSchema.nullish() }),
});

const contentBlockStartSchema = z.object({
  type: z.literal('content_block_start'),
  index: z.number().int().nonnegative(),
  content_block: z.union([
    z.object({ type: z.literal('text'), text: z.string().default('') }),
    z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown().optional() }),
    z.object({ type: z.string() }),
  ]),
});

const contentBlockDeltaSchema = z.object({
  type: z.literal('content_block_delta'),
  index: z.number().int().nonnegative(),
  delta: z.union([
    z.object({ type: z.literal('text_delta'), text: z.string() }),
    z.object({ type: z.literal('input_json_delta'), partial_json: z.string() }),
    z.object({ type: z.string() }),
  ]),
});

const messageDeltaSchema = z.object({
  type: z.literal('message_delta'),
  delta: z.object({ stop_reason: z.string().nullish() }),
  usage: usageSchema.nullish(),
});

export const streamEventSchema = z.union([
  messageStartSchema,
  contentBlockStartSchema,
  contentBlockDeltaSchema,
  messageDeltaSchema,
  z.object({ type: z.enum(['content_block_stop', 'message_stop', 'ping']) }),
  z.object({ type: z.string() }),
]);
export type StreamEvent = z.infer<typeof streamEventSchema>;

/** The error body both as an HTTP response and as an `error` stream event. */
export const errorBodySchema = z.object({
  type: z.literal('error').optional(),
  error: z.object({ type: z.string(), message: z.string().optional() }),
});

export const modelInfoSchema = z.object({ id: z.string() });
