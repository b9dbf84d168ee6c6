import { UsageError } from '@resume/core/spec';
import type { ConclaveConfig } from '@resume/runner';
import { describe, expect, it } from 'vitest';
import { costLimitsOf } from './cost-limits.js';

const config = (limits: Partial<ConclaveConfig['limits']> = {}) =>
  ({ limits: { maxCostUsd: null, maxLineageCostUsd: null, warnAboveUsd: null, ...limits } }) as ConclaveConfig;

describe('cost limits of a run', () => {
  it('takes the flag, then what the session recorded, then the config', () => {
    const fromConfig = costLimitsOf({}, config({ maxCostUsd: 5, warnAboveUsd: 3 }), null);
    expect(fromConfig.limits).toEqual({ maxCostUsd: 5, maxLineageCostUsd: null, warnAboveUsd: 3 });
    expect(fromConfig.record).toEqual({});

    const flagged = costLimitsOf({ maxCost: '$2.50', maxLineageCost: '10' }, config({ maxCostUsd: 5 }), null);
    expect(flagged.limits).toMatchObject({ maxCostUsd: 2.5, maxLineageCostUsd: 10 });
    // A limit given by flag is recorded, so a resume without the flag keeps it.
    expect(flagged.record).toEqual({ limits: { maxCostUsd: 2.5, maxLineageCostUsd: 10 } });

    const resumed = costLimitsOf({}, config({ maxCostUsd: 5 }), flagged.record);
    expect(resumed.limits).toMatchObject({ maxCostUsd: 2.5, maxLineageCostUsd: 10 });
    const raised = costLimitsOf({ maxCost: '4' }, config({ maxCostUsd: 5 }), flagged.record);
    expect(raised.limits.maxCostUsd).toBe(4);
  });

  it('refuses an amount that is not a positive number of dollars, naming the flag', () => {
    for (const value of ['abc', '0', '-1', '']) {
      expect(() => costLimitsOf({ maxCost: value }, config(), null)).toThrow(UsageError);
    }
    expect(() => costLimitsOf({ maxLineageCost: 'ten' }, config(), null)).toThrow(/--max-lineage-cost takes an amount/);
  });
});
