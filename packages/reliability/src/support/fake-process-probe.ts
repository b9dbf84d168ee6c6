// A process probe whose notion of "alive" the test controls: a power loss is a
// reboot (a new boot id), so every lease taken before it reads as dead.
import { hostname } from 'node:os';
import type { ProcessProbe } from '@resume/storage-fs';

export function bootProbe(bootId: string): ProcessProbe {
  return {
    hostname: hostname(),
    bootId,
    isRunning: () => true,
    startTime: () => null,
  };
}
