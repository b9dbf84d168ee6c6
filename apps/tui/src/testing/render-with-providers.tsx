// Test helper: renders a screen with ink-testing-library inside the same providers
// the real entry points use, with pinned colours (off, so frames are plain text),
// a pinned clock and a pinned screen size; plus key names and a frame waiter.
import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import { createTheme } from '../theme/theme.js';
import { ScreenEnvironmentProvider, type ScreenSize } from '../theme/theme-context.js';

export const fixedNow = new Date('2026-03-01T12:00:00.000Z');

export const keys = {
  up: '\u001B[A',
  down: '\u001B[B',
  enter: '\r',
  escape: '\u001B',
  backspace: '\u007F',
  tab: '\t',
} as const;

export function renderWithProviders(
  element: ReactElement,
  options: { size?: ScreenSize; color?: boolean; now?: Date } = {},
) {
  const environment = {
    theme: createTheme({ color: options.color ?? false }),
    now: () => options.now ?? fixedNow,
    size: options.size ?? { columns: 100, rows: 30 },
  };
  const instance = render(<ScreenEnvironmentProvider value={environment}>{element}</ScreenEnvironmentProvider>);
  /** Waits until the last frame satisfies `predicate` (fails the test with the frame if it never does). */
  const waitForFrame = async (predicate: (frame: string) => boolean, what = 'the expected frame'): Promise<string> => {
    for (let tries = 0; tries < 200; tries++) {
      const frame = instance.lastFrame() ?? '';
      if (predicate(frame)) return frame;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`Timed out waiting for ${what}. Last frame:\n${instance.lastFrame() ?? ''}`);
  };
  /** Writes keys one at a time, letting Ink process each. */
  const press = async (...sequence: string[]) => {
    for (const key of sequence) {
      instance.stdin.write(key);
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
  };
  return { ...instance, waitForFrame, press };
}
