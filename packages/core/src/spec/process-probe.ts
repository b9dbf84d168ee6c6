// Whether the process holding a writer lease is still alive, for every store that records a
// holder by pid. A holder on this host is dead when the machine rebooted since (boot id), its
// pid is gone or is a zombie (killed, not yet reaped by its parent: it runs nothing and holds
// nothing), or the pid now belongs to another process (a different start time). A holder on
// another host is always presumed alive: it cannot be checked, and a live holder is never
// taken over.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface ProcessProbe {
  readonly hostname: string;
  /** Changes with every boot; null where the platform does not expose one. */
  readonly bootId: string | null;
  /** Whether `pid` is a process that can still run (a zombie cannot). */
  isRunning(pid: number): boolean;
  /** An opaque token for when `pid` started (Linux: /proc/<pid>/stat field 22); null if unknown. */
  startTime(pid: number): string | null;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The fields of /proc/<pid>/stat after the command name (field 3 on), or null where there is none. */
function statFields(pid: number): string[] | null {
  const stat = readText(`/proc/${pid}/stat`);
  // The command name (field 2) may contain spaces and parentheses; fields after it are plain.
  return stat === null ? null : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Process states of /proc/<pid>/stat that can never run again: zombie, dead. */
const finishedStates = new Set(['Z', 'X', 'x']);

export function createProcessProbe(): ProcessProbe {
  return {
    hostname: hostname(),
    bootId: readText('/proc/sys/kernel/random/boot_id')?.trim() ?? null,
    isRunning(pid) {
      try {
        process.kill(pid, 0);
      } catch (error) {
        // EPERM: the process exists but belongs to someone else.
        const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : null;
        if (code !== 'EPERM') return false;
      }
      // A signal reaches a zombie too: only its state says it is gone.
      const state = statFields(pid)?.[0];
      return state === undefined || !finishedStates.has(state);
    },
    startTime(pid) {
      return statFields(pid)?.[19] ?? null;
    },
  };
}

export interface HolderIdentity {
  pid: number;
  host: string;
  bootId: string | null;
  /** The holder's start time as `startTime` gave it when it took the lease; null when not recorded. */
  processStart: string | null;
}

/** Whether the process recorded in a lease may still be running. */
export function isHolderAlive(holder: HolderIdentity, probe: ProcessProbe): boolean {
  if (holder.host !== probe.hostname) return true;
  if (holder.bootId !== null && probe.bootId !== null && holder.bootId !== probe.bootId) return false;
  if (!probe.isRunning(holder.pid)) return false;
  if (holder.processStart !== null) {
    const current = probe.startTime(holder.pid);
    if (current !== null && current !== holder.processStart) return false;
  }
  return true;
}
