// Turns token usage into USD with the price table in prices.json. An unknown model
// costs null, never a guess: a wrong number in a cost report is worse than none.

import type { Usage } from '@resume/core/spec';
import { z } from 'zod';
import pricesFile from './prices.json' with { type: 'json' };

export const modelPriceSchema = z.object({
  /** USD per million input tokens. */
  input: z.number().nonnegative(),
  /** USD per million output tokens. */
  output: z.number().nonnegative(),
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;

export const priceTableSchema = z.object({
  /** The date the prices were taken from the providers' public price lists (YYYY-MM-DD). */
  updated: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  source: z.string(),
  models: z.record(z.string(), modelPriceSchema),
});
export type PriceTable = z.infer<typeof priceTableSchema>;

/** The built-in price table (validated when the module loads). */
export const priceTable: PriceTable = priceTableSchema.parse(pricesFile);

// Dated snapshots share their base model's price (`gpt-4o-2024-08-06`, `claude-3-5-sonnet-20241022`),
// unless the table lists the snapshot itself (an older snapshot can have another price).
// Only these suffixes are stripped: `gpt-4o-audio-preview` is a different product and stays unknown.
const snapshotSuffix = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/** The price of a model id, or null when the table does not know it. */
export function priceOf(model: string, table: PriceTable = priceTable): ModelPrice | null {
  const id = model.trim().toLowerCase();
  const exact = table.models[id];
  if (exact) return exact;
  const base = id.replace(snapshotSuffix, '');
  if (base === id) return null;
  return table.models[base] ?? null;
}

export interface CostOptions {
  /** The call's provider is free (its factory says so: the offline `scripted`): it costs 0. */
  free?: boolean;
  /** The price the model itself carries (a provider's configured price): before `free` and the table. */
  price?: ModelPrice | undefined;
  table?: PriceTable;
}

/** Cost in USD of one call's usage, or null when the model's price is unknown. */
export function costOf(model: string, usage: Usage, options: CostOptions = {}): number | null {
  if (options.free && !options.price) return 0;
  const price = options.price ?? priceOf(model, options.table);
  if (!price) return null;
  const cost = (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
  // Sums of many calls are shown to the cent; trimming float noise keeps journals stable across platforms.
  return Math.round(cost * 1e10) / 1e10;
}

/** Dollars as people read them: cents from $1 up, tenths of a cent below ($0.0150). */
export function formatUsd(amount: number): string {
  return `$${amount.toFixed(Math.abs(amount) >= 1 ? 2 : 4)}`;
}
