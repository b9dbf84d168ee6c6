// Side-effecting steps whose run was lost when `sessions repair` cut a damaged journal:
// nothing in the journal says they ran, so a resume runs them again. The repair records
// them in the session (`data.lostInRepair`) so every resume plan lists them and asks.
import type { Engine, SessionState } from '@resume/core';
import { type LostStep, lazySchema, type RepairReport } from '@resume/core/spec';
import { z } from 'zod';

export const LOST_IN_REPAIR_KEY = 'lostInRepair';

const lostStepsSchema = lazySchema(() =>
  z.array(
    z.object({ key: z.string(), occurrence: z.number().int().positive(), safety: z.enum(['idempotent', 'unsafe']) }),
  ),
);

function finishedIn(state: SessionState, step: LostStep): boolean {
  return state.steps.some(
    (recorded) =>
      recorded.key === step.key &&
      recorded.occurrence === step.occurrence &&
      (recorded.status === 'completed' || recorded.status === 'skipped'),
  );
}

/** The side-effecting steps lost in a repair that have not run again since. */
export function lostInRepairOf(state: SessionState): LostStep[] {
  const parsed = lostStepsSchema.safeParse(state.data[LOST_IN_REPAIR_KEY] ?? []);
  return parsed.success ? parsed.data.filter((step) => !finishedIn(state, step)) : [];
}

/**
 * After a repair: records the side-effecting steps started in the removed part (those the
 * kept journal does not show finished) and returns them, for the repair's own report.
 */
export async function noteStepsLostInRepair(engine: Engine, report: RepairReport): Promise<LostStep[]> {
  const unsafe = (report.lostSteps ?? []).filter((step) => step.safety === 'unsafe');
  if (unsafe.length === 0) return [];
  const session = await engine.openSession(report.sessionId, { replay: 'keyed', countRecovery: false });
  try {
    const lost = unsafe.filter((step) => !finishedIn(session.state, step));
    const known = lostInRepairOf(session.state);
    const all = [
      ...known,
      ...lost.filter((step) => !known.some((other) => other.key === step.key && other.occurrence === step.occurrence)),
    ];
    if (lost.length > 0) session.record({ type: 'data-set', key: LOST_IN_REPAIR_KEY, value: all });
    await session.flush();
    return lost;
  } finally {
    await session.close();
  }
}
