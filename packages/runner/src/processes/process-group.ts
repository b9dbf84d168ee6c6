// A shell step's command runs as a process group of its own (the shell and everything it
// starts). This module finds such a group again after the process that started it died, waits
// for it, and stops it: SIGTERM to the whole group, a grace period, then SIGKILL.
import { createProcessProbe, isProcessGroupAlive, type ProcessProbe, type StepProcess } from '@resume/core/spec';

/** How long a group gets to end after SIGTERM before it is sent SIGKILL. */
export const STOP_GRACE_MS = 2000;
const POLL_MS = 25;

let probe: ProcessProbe | null = null;
/** The process probe, made on first use (it reads the host's boot id). */
export function processProbe(): ProcessProbe {
  probe ??= createProcessProbe();
  return probe;
}

/** Whether a recorded command may still be running on this host (see isProcessGroupAlive). */
export function isCommandRunning(process: StepProcess): boolean {
  return isProcessGroupAlive(process, processProbe());
}

/** A process group this module may signal: a whole number above 1. */
function isSignallableGroup(processGroup: number): boolean {
  return Number.isInteger(processGroup) && processGroup > 1;
}

/** Whether any process of the group can still run. */
function groupHasMembers(processGroup: number): boolean {
  if (!isSignallableGroup(processGroup)) return false;
  const members = processProbe().groupMembers?.(processGroup);
  if (members) return members.length > 0;
  try {
    process.kill(-processGroup, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(processGroup: number, signal: NodeJS.Signals): boolean {
  // -0 is the caller's own group and -1 every process it may signal: never a recorded command's.
  if (!isSignallableGroup(processGroup)) return false;
  try {
    process.kill(-processGroup, signal);
    return true;
  } catch {
    return false;
  }
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves true once the group has no process left, false when `ms` passed first. */
async function endsWithin(processGroup: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!groupHasMembers(processGroup)) return true;
    if (Date.now() >= deadline) return false;
    await pause(POLL_MS);
  }
}

/**
 * Stops a whole process group: SIGTERM, up to `graceMs` for it to end, then SIGKILL. Resolves
 * with the signal that ended it, or null when it had already ended.
 */
export async function stopProcessGroup(
  processGroup: number,
  graceMs = STOP_GRACE_MS,
): Promise<'SIGTERM' | 'SIGKILL' | null> {
  if (!groupHasMembers(processGroup) || !signalGroup(processGroup, 'SIGTERM')) return null;
  if (await endsWithin(processGroup, graceMs)) return 'SIGTERM';
  signalGroup(processGroup, 'SIGKILL');
  await endsWithin(processGroup, 1000);
  return 'SIGKILL';
}

/** Waits until a recorded command is no longer running; rejects with the signal's reason when aborted first. */
export async function waitForCommandEnd(process: StepProcess, signal: AbortSignal, pollMs = 200): Promise<void> {
  while (isCommandRunning(process)) {
    if (signal.aborted) throw signal.reason;
    await pause(pollMs);
  }
}
