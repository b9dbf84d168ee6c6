// Stopping a recorded command's process group must never reach this process's own group (-0)
// or every process the user may signal (-1), whatever a damaged or hostile journal records.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stopProcessGroup } from './process-group.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('stopProcessGroup', () => {
  it.each([0, 1, -5, 2.5, Number.NaN])('sends no signal at all for group %s', async (group) => {
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
    expect(await stopProcessGroup(group, 10)).toBeNull();
    expect(kill).not.toHaveBeenCalled();
  });
});
