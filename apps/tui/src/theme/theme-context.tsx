// Hands the theme, the clock and (in tests) a fixed screen size to every screen, so
// components never read the environment or the real time themselves.
import { useWindowSize } from 'ink';
import { createContext, type ReactNode, useContext } from 'react';
import { createTheme, type Theme } from './theme.js';

export interface ScreenSize {
  columns: number;
  rows: number;
}

export interface ScreenEnvironment {
  theme: Theme;
  now: () => Date;
  /** Pins the screen size (tests); otherwise the terminal's size, following resizes. */
  size?: ScreenSize;
}

const ScreenEnvironmentContext = createContext<ScreenEnvironment>({
  theme: createTheme({ color: false }),
  now: () => new Date(),
});

export function ScreenEnvironmentProvider(props: { value: ScreenEnvironment; children: ReactNode }) {
  return <ScreenEnvironmentContext.Provider value={props.value}>{props.children}</ScreenEnvironmentContext.Provider>;
}

export function useTheme(): Theme {
  return useContext(ScreenEnvironmentContext).theme;
}

export function useNow(): () => Date {
  return useContext(ScreenEnvironmentContext).now;
}

/** Never below 40x12, so layout arithmetic stays positive in a tiny terminal. */
export function useScreenSize(): ScreenSize {
  const pinned = useContext(ScreenEnvironmentContext).size;
  const terminal = useWindowSize();
  const size = pinned ?? terminal;
  return { columns: Math.max(40, size.columns), rows: Math.max(12, size.rows) };
}
