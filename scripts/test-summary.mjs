// Prints the plain closing line of a test run ("N passed, N failed, N skipped") from
// vitest's JSON report, so any reader of the log sees the totals last.
import { readFileSync } from 'node:fs';

const [reportPath] = process.argv.slice(2);
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const passed = report.numPassedTests ?? 0;
const failed = report.numFailedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
