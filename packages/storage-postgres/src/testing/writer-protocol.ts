// Test support: what the writer process is told (config) and what it reports (one JSON line each).
import { z } from 'zod';

export const writerConfigSchema = z.object({
  url: z.string(),
  schema: z.string(),
  sessionId: z.string(),
  holderHost: z.string().optional(),
  leaseTtlMs: z.number().int().positive(),
  heartbeatMs: z.number().int().positive(),
  /** Batches to append before idling; 0 appends until killed. */
  batches: z.number().int().nonnegative(),
  eventsPerBatch: z.number().int().positive(),
});
export type WriterConfig = z.infer<typeof writerConfigSchema>;

export const writerReportSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('acquired'), epoch: z.number(), pid: z.number() }),
  z.object({ kind: z.literal('locked'), host: z.string(), pid: z.number() }),
  z.object({ kind: z.literal('ack'), seq: z.number() }),
  z.object({ kind: z.literal('lost') }),
  z.object({ kind: z.literal('idle') }),
]);
export type WriterReport = z.infer<typeof writerReportSchema>;
