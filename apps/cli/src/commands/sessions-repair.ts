// `conclave sessions repair <id>`: keeps the valid prefix of a damaged journal.
import { isSessionId, UsageError } from '@resume/core/spec';
import { noteStepsLostInRepair } from '@resume/runner';
import type { CliContext } from '../context/cli-context.js';
import { resolveIdPrefix } from '../sessions/resolve-session.js';

export async function repairSessionCommand(context: CliContext, input: { reference: string }): Promise<number> {
  const store = await context.store();
  if (!store.repair)
    throw new UsageError(`The ${store.kind} store at ${store.location} cannot repair sessions.`, {
      hint: 'Repair applies to the file store; a database keeps its own integrity.',
    });
  // A damaged session may not fold, so the id is resolved from the index, never by reading it.
  const reference = input.reference.trim().toLowerCase();
  let id = reference;
  if (!isSessionId(reference)) {
    const engine = await context.engine();
    id = await resolveIdPrefix(engine, reference);
  }
  const report = await store.repair(id);
  // Side-effecting steps started in the removed part run again on resume: recorded so the
  // resume plan lists them and asks, and said here.
  const lost = report.removedBytes === 0 ? [] : await noteStepsLostInRepair(await context.engine(), report);
  if (context.options.json) {
    context.terminal.out(JSON.stringify({ ...report, willRunAgain: lost }));
    return 0;
  }
  if (report.removedBytes === 0)
    context.terminal.out(`Session ${id} is intact (last event ${report.keptSeq}); nothing removed.`);
  else {
    context.terminal.out(
      `Repaired session ${id}: kept events 1..${report.keptSeq}, removed ${report.removedBytes} bytes.`,
    );
    if (report.savedTo) context.terminal.out(`The removed bytes are kept in ${report.savedTo}`);
    if (lost.length > 0) {
      context.terminal.out(
        `Will run again when resumed (their earlier run was lost with the damaged part): ${lost.length} side-effecting step${lost.length === 1 ? '' : 's'}`,
      );
      for (const step of lost) {
        context.terminal.out(`    - ${step.occurrence > 1 ? `${step.key} (#${step.occurrence})` : step.key}`);
      }
    }
    context.terminal.out(`Resume it with: conclave --resume ${id}`);
  }
  return 0;
}
