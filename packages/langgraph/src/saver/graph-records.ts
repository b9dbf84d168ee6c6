// The `data` of the journal's graph events, format 1 (zod, read back at every load).
//
// graph-checkpoint-saved: the checkpoint without its channel values, its metadata, and the
// values of the channels whose version changed (`newVersions`), each one of:
//   { channel, version, empty: true }             the channel was emptied
//   { channel, version, item }                    a value, serialized by the saver's serde
//   { channel, version, items, base? }            a list: `base` names the version of the same
//                                                 channel (as the parent checkpoint resolves it)
//                                                 whose items come first, so a growing list
//                                                 stores only what was appended
// graph-writes-saved: a task's pending writes, with the task path LangGraph orders them by.
// An item is the serde's output: parsed JSON (readable with jq), base64 for other types, or
// the sha256 of a content-addressed blob when it is larger than the blob threshold.
import { checkedSafeParser } from '@resume/core/lazy-schema';
import type { JsonValue } from '@resume/core/spec';
import { z } from 'zod';
import { checkCheckpointData, checkWritesData } from './graph-records-check.generated.js';

export const GRAPH_DATA_FORMAT = 1;

// The journal already validated `data` as JSON; these schemas check its structure. Each record
// is checked first by the check generated from its schema (graph-records-check.generated.js,
// scripts/generate-checks.mjs); zod sees only what that check refuses.
const jsonSchema = z.unknown().refine((value) => value !== undefined) as z.ZodType<JsonValue>;
const versionSchema = z.union([z.number(), z.string()]);

export const storedItemSchema = z.union([
  z.object({ type: z.string(), json: jsonSchema }).strict(),
  z.object({ type: z.string(), base64: z.string() }).strict(),
  z.object({ type: z.string(), blob: z.string().regex(/^[0-9a-f]{64}$/) }).strict(),
]);
export type StoredItem = z.infer<typeof storedItemSchema>;

export const storedChannelValueSchema = z.union([
  z.object({ channel: z.string(), version: versionSchema, empty: z.literal(true) }).strict(),
  z.object({ channel: z.string(), version: versionSchema, item: storedItemSchema }).strict(),
  z
    .object({
      channel: z.string(),
      version: versionSchema,
      items: z.array(storedItemSchema),
      base: versionSchema.optional(),
    })
    .strict(),
]);
export type StoredChannelValue = z.infer<typeof storedChannelValueSchema>;

export const checkpointDataSchema = z
  .object({
    format: z.literal(GRAPH_DATA_FORMAT),
    checkpoint: storedItemSchema,
    metadata: storedItemSchema,
    values: z.array(storedChannelValueSchema),
  })
  .strict();
export type CheckpointData = z.infer<typeof checkpointDataSchema>;

export const storedWriteSchema = z
  .object({ index: z.number().int(), channel: z.string(), value: storedItemSchema })
  .strict();
export type StoredWrite = z.infer<typeof storedWriteSchema>;

export const writesDataSchema = z
  .object({ format: z.literal(GRAPH_DATA_FORMAT), taskPath: z.string(), writes: z.array(storedWriteSchema) })
  .strict();
export type WritesData = z.infer<typeof writesDataSchema>;

/** `checkpointDataSchema.safeParse`, answered by the generated check when it can. */
export const safeParseCheckpointData = checkedSafeParser(checkpointDataSchema, checkCheckpointData);

/** `writesDataSchema.safeParse`, answered by the generated check when it can. */
export const safeParseWritesData = checkedSafeParser(writesDataSchema, checkWritesData);
