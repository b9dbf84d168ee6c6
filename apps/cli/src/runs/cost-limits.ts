// The cost limits of one run: `--max-cost` / `--max-lineage-cost` win, then the limits the
// session recorded when it started (so `run --resume` keeps the limit it ran with), then
// the config's `limits`. A limit given by flag is recorded with the session.
import { type JsonValue, UsageError } from '@resume/core/spec';
import type { ConclaveConfig } from '@resume/runner';

export interface CostLimitFlags {
  maxCost?: string | undefined;
  maxLineageCost?: string | undefined;
}

export interface RunLimits {
  maxCostUsd: number | null;
  maxLineageCostUsd: number | null;
  warnAboveUsd: number | null;
}

export const LIMITS_RECORD_KEY = 'limits';

function parseUsd(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const amount = Number(value.trim().replace(/^\$/, ''));
  if (!Number.isFinite(amount) || amount <= 0 || value.trim() === '')
    throw new UsageError(`${flag} takes an amount in US dollars greater than 0, not "${value}".`, {
      hint: `Example: ${flag} 2.50`,
    });
  return amount;
}

function recordedLimit(recorded: Record<string, JsonValue> | null, key: string): number | undefined {
  const limits = recorded?.[LIMITS_RECORD_KEY];
  if (!limits || typeof limits !== 'object' || Array.isArray(limits)) return undefined;
  const value = (limits as Record<string, JsonValue>)[key];
  return typeof value === 'number' && value > 0 ? value : undefined;
}

export function costLimitsOf(
  flags: CostLimitFlags,
  config: ConclaveConfig,
  recorded: Record<string, JsonValue> | null,
): { limits: RunLimits; record: Record<string, JsonValue> } {
  const maxCost = parseUsd('--max-cost', flags.maxCost);
  const maxLineageCost = parseUsd('--max-lineage-cost', flags.maxLineageCost);
  const limits: RunLimits = {
    maxCostUsd: maxCost ?? recordedLimit(recorded, 'maxCostUsd') ?? config.limits.maxCostUsd,
    maxLineageCostUsd:
      maxLineageCost ?? recordedLimit(recorded, 'maxLineageCostUsd') ?? config.limits.maxLineageCostUsd,
    warnAboveUsd: config.limits.warnAboveUsd,
  };
  const given = {
    ...(maxCost !== undefined ? { maxCostUsd: maxCost } : {}),
    ...(maxLineageCost !== undefined ? { maxLineageCostUsd: maxLineageCost } : {}),
  };
  return { limits, record: Object.keys(given).length > 0 ? { [LIMITS_RECORD_KEY]: given } : {} };
}
