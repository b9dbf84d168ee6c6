// `conclave sessions verify [id]`: reads every file of a session (or of every session) in
// full and reports any damage with file and offset. Exit 0 when all is intact, 65 when not.
import type { VerifyReport } from '@resume/core/spec';
import { ExitCode } from '@resume/runner/exit-codes';
import type { CliContext } from '../context/cli-context.js';
import { damagedSessionId, maintainableStore } from './sessions-repair.js';

export async function verifySessionsCommand(context: CliContext, input: { reference?: string }): Promise<number> {
  const store = await maintainableStore(context, 'verify');
  const ids = input.reference
    ? [await damagedSessionId(context, input.reference)]
    : (await store.list()).map((summary) => summary.id);
  const terminal = context.terminal;
  const reports: VerifyReport[] = [];
  for (const [position, id] of ids.entries()) {
    if (ids.length > 20 && position % 20 === 0) terminal.note(terminal.dim(`Verifying ${position + 1}/${ids.length}…`));
    reports.push(await store.verify(id));
  }
  const damaged = reports.filter((report) => report.problems.length > 0);
  if (context.options.json) {
    terminal.data(JSON.stringify(reports));
    return damaged.length > 0 ? ExitCode.corrupted : ExitCode.success;
  }
  for (const report of reports) {
    if (report.problems.length === 0) {
      terminal.out(`${terminal.green('ok')}       ${report.sessionId}  (${report.lastSeq} events)`);
      continue;
    }
    terminal.out(`${terminal.red('damaged')}  ${report.sessionId}`);
    for (const problem of report.problems) {
      terminal.out(`  - ${problem.problem}`);
      terminal.out(terminal.dim(`    ${problem.file}${problem.offset === null ? '' : ` at byte ${problem.offset}`}`));
    }
    terminal.out(`  See what a repair would do: conclave sessions repair ${report.sessionId} --dry-run`);
  }
  if (reports.length === 0) terminal.note('No sessions to verify.');
  else if (reports.length > 1)
    terminal.note(
      damaged.length === 0
        ? `All ${reports.length} sessions are intact.`
        : `${damaged.length} of ${reports.length} sessions are damaged.`,
    );
  return damaged.length > 0 ? ExitCode.corrupted : ExitCode.success;
}
