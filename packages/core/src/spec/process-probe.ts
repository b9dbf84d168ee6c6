// Whether the process holding a writer lease is still alive, for every store that records a
// holder by pid. A holder on this host is dead when the machine rebooted since (boot id), its
// pid is gone or is a zombie (killed, not yet reaped by its parent: it runs nothing and holds
// nothing), or the pid now belongs to another process (a different start time). A holder on
// another host is always presumed alive: it cannot be checked, and a live holder is never
// taken over. The same probe tells whether a shell step's command (a process group) recorded by a
// run that died is still running.
import { readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface ProcessProbe {
  readonly hostname: string;
  /** Changes with every boot; null where the platform does not expose one. */
  readonly bootId: string | null;
  /** Whether `pid` is a process that can still run (a zombie cannot). */
  isRunning(pid: number): boolean;
  /** An opaque token for when `pid` started (Linux: /proc/<pid>/stat field 22); null if unknown. */
  startTime(pid: number): string | null;
  /** The processes of a process group that can still run; absent where they cannot be listed. */
  groupMembers?(processGroup: number): number[];
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
    groupMembers(processGroup) {
      let entries: string[];
      try {
        entries = readdirSync('/proc');
      } catch {
        return [];
      }
      const members: number[] = [];
      for (const entry of entries) {
        const pid = Number(entry);
        if (!Number.isInteger(pid) || pid <= 0) continue;
        // Field 3 is the state, field 5 the process group.
        const fields = statFields(pid);
        if (fields && Number(fields[2]) === processGroup && !finishedStates.has(fields[0] ?? '')) members.push(pid);
      }
      return members;
    },
  };
}

export interface ProcessGroupRecord {
  pid: number;
  processGroup: number;
  startTime: string | null;
  host: string;
  bootId: string | null;
}

/**
 * Whether a recorded command (the process group its shell leads) may still be running: its
 * leader with the recorded start time, or any process left in its group (a group id is not given
 * to a new process while its group has members). Another host's cannot be checked: false, the
 * caller says so. A leader whose pid now belongs to a later process means the group is gone.
 */
export function isProcessGroupAlive(record: ProcessGroupRecord, probe: ProcessProbe): boolean {
  if (record.host !== probe.hostname) return false;
  if (record.bootId !== null && probe.bootId !== null && record.bootId !== probe.bootId) return false;
  if (probe.isRunning(record.pid)) {
    const current = probe.startTime(record.pid);
    if (record.startTime === null || current === null || current === record.startTime) return true;
    return false;
  }
  if (probe.groupMembers) return probe.groupMembers(record.processGroup).length > 0;
  try {
    process.kill(-record.processGroup, 0);
    return true;
  } catch {
    return false;
  }
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
