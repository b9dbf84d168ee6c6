// The daily and monthly budgets of `limits.dailyCost` / `monthlyCost`: what every session spent
// since a time, from the usage ledger (read only when a budget is set, once per run).
import type { RunnerOptions } from '@resume/runner';
import type { CliContext } from '../context/cli-context.js';
import { contentIndexFile, contentWordKey } from '../sessions/content-search.js';

/** The runner's budgets from the config, or undefined when none is set. */
export function budgetsOf(context: CliContext): RunnerOptions['budgets'] {
  const { config } = context.config();
  const { dailyCost, monthlyCost } = config.limits;
  if (dailyCost === null && monthlyCost === null) return undefined;
  return {
    dailyUsd: dailyCost,
    monthlyUsd: monthlyCost,
    now: context.environment.now,
    async spentSince(since) {
      const [ledger, store, wordKey] = await Promise.all([
        import('@resume/runner/ledger'),
        context.store(),
        contentWordKey(context),
      ]);
      // An encrypted home's index hashes its words under its key, whoever opens it.
      const index = await ledger.openContentIndex({
        file: contentIndexFile(store, config.home),
        store,
        ...(wordKey ? { wordKey } : {}),
      });
      try {
        return ledger.buildUsageReport(await index.usage(), { by: [], since }).total.costUsd;
      } finally {
        index.close();
      }
    },
  };
}
