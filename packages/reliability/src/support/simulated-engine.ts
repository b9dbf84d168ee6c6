// An engine over the file store on a simulated disk, as a fresh process would open it:
// each call is a new "boot", so a lease left by an earlier one reads as a dead holder's.
import { createEngine, type Engine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import type { SimulatedFileSystem } from '../power-loss/simulated-file-system.js';
import { bootProbe } from './fake-process-probe.js';

/** The home directory the store uses on the simulated disk. */
export const SIMULATED_HOME = '/home';

let boots = 0;

export function engineOnDisk(disk: SimulatedFileSystem, options: { snapshotEvery: number }): Engine {
  boots += 1;
  const store = createFsStore({
    dir: SIMULATED_HOME,
    fileSystem: disk.operationsView(),
    processProbe: bootProbe(`boot-${boots}`),
  });
  return createEngine({
    store,
    snapshotEvery: options.snapshotEvery,
    holder: { pid: 4242, host: bootProbe('').hostname },
  });
}
