// The simulated disk must lose exactly what a real one may lose, or the power-loss
// suite proves nothing: synced data and entries survive, unsynced ones may not, torn
// writes keep whole sectors only, and a dead disk refuses every operation.
import { describe, expect, it } from 'vitest';
import { PowerLossError, SimulatedFileSystem } from './simulated-file-system.js';

const keepAll = () => 0.999;
const keepNothing = () => 0;

async function diskWithFile(content: Buffer, synced: { data: boolean; entry: boolean }) {
  const disk = new SimulatedFileSystem();
  await disk.makeDirectory('/home');
  await disk.syncDirectory('/');
  const file = await disk.createExclusive('/home/file');
  await file.write(content);
  if (synced.data) await file.datasync();
  if (synced.entry) await disk.syncDirectory('/home');
  return disk;
}

describe('simulated file system', () => {
  it('keeps synced data and entries through a power loss', async () => {
    const disk = await diskWithFile(Buffer.from('durable'), { data: true, entry: true });
    const after = disk.crash({ random: keepNothing });
    expect((await after.readFile('/home/file')).toString()).toBe('durable');
  });

  it('may lose a file whose directory entry was never synced, even with its data synced', async () => {
    const disk = await diskWithFile(Buffer.from('orphan'), { data: true, entry: false });
    expect(await disk.crash({ random: keepNothing }).status('/home/file')).toBeNull();
  });

  it('may lose unsynced data, and keeps it when every sector happens to reach the disk', async () => {
    const lost = await diskWithFile(Buffer.alloc(2000, 0x61), { data: false, entry: true });
    expect((await lost.crash({ random: keepNothing }).readFile('/home/file')).length).toBe(0);
    const kept = await diskWithFile(Buffer.alloc(2000, 0x61), { data: false, entry: true });
    expect((await kept.crash({ random: keepAll }).readFile('/home/file')).equals(Buffer.alloc(2000, 0x61))).toBe(true);
  });

  it('tears an unsynced write at sector boundaries, holes reading as zeros', async () => {
    const disk = await diskWithFile(Buffer.alloc(1536, 0x62), { data: false, entry: true });
    // Sectors: [0,512) lost, [512,1024) kept, [1024,1536) lost.
    const choices = [0.1, 0.9, 0.1];
    const after = disk.crash({ random: () => choices.shift() ?? 0, sectorSize: 512 });
    const content = await after.readFile('/home/file');
    expect(content.length).toBe(1024);
    expect(content.subarray(0, 512).equals(Buffer.alloc(512))).toBe(true);
    expect(content.subarray(512, 1024).equals(Buffer.alloc(512, 0x62))).toBe(true);
    expect(after.lastCrash).toMatchObject({ sectorsKept: 1, sectorsLost: 2 });
  });

  it('fails every operation once the power is out, including the one that hit it', async () => {
    const disk = await diskWithFile(Buffer.from('x'), { data: true, entry: true });
    disk.failAfter(1);
    await expect(disk.rename('/home/file', '/home/other')).rejects.toBeInstanceOf(PowerLossError);
    await expect(disk.readFile('/home/file')).rejects.toBeInstanceOf(PowerLossError);
    expect(await disk.crash({ random: keepAll }).status('/home/other')).toBeNull();
  });

  it('keeps unsynced entry changes only as a prefix of the order they were made in', async () => {
    const disk = new SimulatedFileSystem();
    await disk.makeDirectory('/home');
    await disk.syncDirectory('/');
    for (const name of ['a', 'b', 'c']) await (await disk.createExclusive(`/home/${name}`)).close();
    // 0.5 of 4 possible prefixes (0..3 changes) keeps the first two.
    const after = disk.crash({ random: () => 0.5 });
    expect(await after.readDirectory('/home')).toEqual(['a', 'b']);
  });
});
