// `conclave sessions repair <id> [--dry-run]`: rebuilds what can be rebuilt of a damaged
// session (its header, the longest provable journal, its snapshot) and says exactly what
// it keeps and drops; `--dry-run` says it without changing anything. Side-effecting steps
// whose run was lost with the damaged part are recorded, so every resume plan lists them.
import { isSessionId, type LostStep, type RepairReport, type SessionStore, UsageError } from '@resume/core/spec';
import { noteStepsLostInRepair } from '@resume/runner';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { resolveSession } from '../sessions/resolve-session.js';

const repairOptionsSchema = z.object({ dryRun: z.boolean().default(false) });

/** The store, if it can check and repair sessions (the file and PostgreSQL stores can; a store of another library may not). */
export async function maintainableStore(
  context: CliContext,
  capability: 'repair' | 'verify',
): Promise<Required<Pick<SessionStore, 'repair' | 'verify'>> & SessionStore> {
  const store = await context.store();
  if (!store.repair || !store.verify)
    throw new UsageError(`The ${store.kind} store at ${store.location} cannot ${capability} sessions.`, {
      hint: `${capability === 'repair' ? 'Repair' : 'Verification'} is offered by the file and PostgreSQL stores; check this store with its own tools.`,
    });
  return store as Required<Pick<SessionStore, 'repair' | 'verify'>> & SessionStore;
}

/** A damaged session may not fold, so a full id is used as given and anything else resolved from the listing. */
export async function damagedSessionId(context: CliContext, reference: string): Promise<string> {
  const trimmed = reference.trim().toLowerCase();
  return isSessionId(trimmed) ? trimmed : resolveSession(context, reference);
}

export async function repairSessionCommand(
  context: CliContext,
  input: { reference: string; options?: Record<string, unknown> },
): Promise<number> {
  const options = repairOptionsSchema.parse(input.options ?? {});
  const store = await maintainableStore(context, 'repair');
  const id = await damagedSessionId(context, input.reference);
  const report = await store.repair(id, { dryRun: options.dryRun });
  // Side-effecting steps started in the removed part run again on resume: recorded so the
  // resume plan lists them and asks, and said here.
  // The events it dropped are recorded too, so an export says which ones are missing.
  const lost = report.dryRun
    ? (report.lostSteps ?? []).filter((step) => step.safety === 'unsafe')
    : await noteStepsLostInRepair(await context.engine(), report);
  if (context.options.json) {
    context.terminal.data(JSON.stringify({ ...report, willRunAgain: lost }));
    return 0;
  }
  printRepair(context, report, lost);
  return 0;
}

function printRepair(context: CliContext, report: RepairReport, lost: LostStep[]): void {
  const terminal = context.terminal;
  const id = report.sessionId;
  const actions = report.actions ?? [];
  if (actions.length === 0) {
    terminal.out(`Session ${id} is intact (last event ${report.keptSeq}); nothing to repair.`);
    return;
  }
  terminal.out(
    report.dryRun
      ? `A repair of session ${id} would keep events 1..${report.keptSeq} and:`
      : `Repaired session ${id}: kept events 1..${report.keptSeq}.`,
  );
  for (const action of actions) terminal.out(`  - ${action}`);
  if (lost.length > 0) {
    terminal.out(
      `${report.dryRun ? 'Would run again' : 'Will run again'} when resumed (their earlier run was lost with the damaged part): ${lost.length} side-effecting step${lost.length === 1 ? '' : 's'}`,
    );
    for (const step of lost)
      terminal.out(`    - ${step.occurrence > 1 ? `${step.key} (#${step.occurrence})` : step.key}`);
  }
  if (report.dryRun) {
    terminal.out(`Nothing was changed. Repair it with: conclave sessions repair ${id}`);
    return;
  }
  if (report.removedBytes > 0) terminal.out(`Removed ${report.removedBytes} bytes from the journal.`);
  if (report.savedTo) terminal.out(`Everything the repair removed is kept in ${report.savedTo}`);
  terminal.out(`Resume it with: conclave --resume ${id}`);
}
