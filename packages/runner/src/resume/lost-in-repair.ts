// What `sessions repair` lost when it cut a damaged journal, recorded in the session. Side-
// effecting steps whose run was lost: nothing in the journal says they ran, so a resume runs
// them again; they are recorded (`data.lostInRepair`) so every resume plan lists them and asks.
// The events it dropped (`data.eventsLostInRepair`): an export says which ones are missing.
import type { Engine, SessionState } from '@resume/core';
import { lazySchema } from '@resume/core/lazy-schema';
import type { LostStep, RepairReport } from '@resume/core/spec';
import { z } from 'zod';

export const LOST_IN_REPAIR_KEY = 'lostInRepair';
export const EVENTS_LOST_IN_REPAIR_KEY = 'eventsLostInRepair';

/** Events a repair dropped (`last` null when unknown) and the last one it kept. */
export interface EventsLostInRepair {
  first: number;
  last: number | null;
  keptSeq: number;
}

const lostStepsSchema = lazySchema(() =>
  z.array(
    z.object({ key: z.string(), occurrence: z.number().int().positive(), safety: z.enum(['idempotent', 'unsafe']) }),
  ),
);

const eventsLostSchema = lazySchema(() =>
  z.array(
    z.object({
      first: z.number().int().positive(),
      last: z.number().int().positive().nullable(),
      keptSeq: z.number().int().nonnegative(),
    }),
  ),
);

/** Every range of events the session's repairs dropped, oldest repair first. */
export function eventsLostInRepairOf(state: SessionState): EventsLostInRepair[] {
  const parsed = eventsLostSchema.safeParse(state.data[EVENTS_LOST_IN_REPAIR_KEY] ?? []);
  return parsed.success ? parsed.data : [];
}

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
 * After a repair: records the events it dropped and the side-effecting steps started in the
 * removed part (those the kept journal does not show finished), and returns those steps, for
 * the repair's own report.
 */
export async function noteStepsLostInRepair(engine: Engine, report: RepairReport): Promise<LostStep[]> {
  const unsafe = (report.lostSteps ?? []).filter((step) => step.safety === 'unsafe');
  const dropped = report.droppedEvents ?? null;
  if (unsafe.length === 0 && !dropped) return [];
  const session = await engine.openSession(report.sessionId, { replay: 'keyed', countRecovery: false });
  try {
    const lost = unsafe.filter((step) => !finishedIn(session.state, step));
    const known = lostInRepairOf(session.state);
    const all = [
      ...known,
      ...lost.filter((step) => !known.some((other) => other.key === step.key && other.occurrence === step.occurrence)),
    ];
    if (lost.length > 0) session.record({ type: 'data-set', key: LOST_IN_REPAIR_KEY, value: all });
    if (dropped) {
      const events: EventsLostInRepair[] = [
        ...eventsLostInRepairOf(session.state),
        { first: dropped.first, last: dropped.last, keptSeq: report.keptSeq },
      ];
      session.record({ type: 'data-set', key: EVENTS_LOST_IN_REPAIR_KEY, value: events });
    }
    await session.flush();
    return lost;
  } finally {
    await session.close();
  }
}
