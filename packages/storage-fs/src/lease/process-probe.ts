// How the store tells whether a lease holder is still alive. A holder on this host
// is dead when the machine rebooted since (boot id), its pid is gone, or the pid now
// belongs to another process (different start time). A holder on another host is
// always presumed alive: it cannot be checked, and a live holder is never taken over.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface ProcessProbe {
  readonly hostname: string;
  /** Changes with every boot; null where the platform does not expose one. */
  readonly bootId: string | null;
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

export function createProcessProbe(): ProcessProbe {
  return {
    hostname: hostname(),
    bootId: readText('/proc/sys/kernel/random/boot_id')?.trim() ?? null,
    isRunning(pid) {
      try {
        process.kill(pid, 0);
        return true;
      } catch (error) {
        // EPERM: the process exists but belongs to someone else.
        return typeof error === 'object' && error !== null && 'code' in error && error.code === 'EPERM';
      }
    },
    startTime(pid) {
      const stat = readText(`/proc/${pid}/stat`);
      if (stat === null) return null;
      // The command name (field 2) may contain spaces and parentheses; fields after it are plain.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return fields[19] ?? null;
    },
  };
}

export interface HolderIdentity {
  pid: number;
  host: string;
  bootId: string | null;
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
