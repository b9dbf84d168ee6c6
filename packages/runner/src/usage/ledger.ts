// `@resume/runner/ledger`: what the sessions' model calls cost, from the usage table the content
// index reads from the journals, summed as `conclave usage` shows it.
export {
  type OpenContentIndexOptions,
  openContentIndex,
  type UsageEntry,
  type UsageLedger,
} from '../search/content-index.js';
export type { WordKey } from '../search/keyed-words.js';
export {
  buildUsageReport,
  isoWeek,
  localDay,
  lockedSessionsNote,
  USAGE_DIMENSIONS,
  type UsageDimension,
  type UsageReport,
  type UsageReportOptions,
  type UsageReportRow,
  type UsageTotals,
} from './usage-report.js';
