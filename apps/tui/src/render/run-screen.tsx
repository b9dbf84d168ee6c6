// Mounts one Ink screen, waits for it to report its answer, unmounts it and returns
// the answer. Ctrl+C (or any exit without an answer) gives the screen's cancel value,
// so a prompt can never leave the caller waiting.
import { render } from 'ink';
import type { ReactElement } from 'react';
import { ScreenEnvironmentProvider } from '../theme/theme-context.js';
import type { ResolvedScreenIo } from './screen-io.js';
import { withTerminal } from './terminal-owner.js';

export async function runScreen<T>(
  io: ResolvedScreenIo,
  screen: (done: (value: T) => void) => ReactElement,
  cancelValue: T,
  options: { alternateScreen?: boolean; clearOnExit?: boolean } = {},
): Promise<T> {
  return withTerminal(() => mountScreen(io, screen, cancelValue, options));
}

async function mountScreen<T>(
  io: ResolvedScreenIo,
  screen: (done: (value: T) => void) => ReactElement,
  cancelValue: T,
  options: { alternateScreen?: boolean; clearOnExit?: boolean },
): Promise<T> {
  let answered = false;
  let answer: T = cancelValue;
  let unmount: () => void = () => undefined;
  const done = (value: T) => {
    if (answered) return;
    answered = true;
    answer = value;
    unmount();
  };
  const instance = render(
    <ScreenEnvironmentProvider value={io.environment}>{screen(done)}</ScreenEnvironmentProvider>,
    {
      stdin: io.stdin,
      stdout: io.stdout,
      stderr: io.stderr,
      exitOnCtrlC: true,
      patchConsole: false,
      alternateScreen: options.alternateScreen ?? false,
      // Screens open only on a terminal; Ink would otherwise go non-interactive when CI is set
      // and the user would face a prompt that is never drawn.
      interactive: true,
    },
  );
  unmount = () => {
    // The picker leaves nothing behind; prompts stay on screen as a record of the answer.
    if (options.clearOnExit) instance.clear();
    instance.unmount();
  };
  // The screen may answer during the first render, before `unmount` was assigned.
  if (answered) unmount();
  try {
    await instance.waitUntilExit();
  } catch {
    // An exit with an error (e.g. stdin closed) is treated as no answer.
  }
  return answered ? answer : cancelValue;
}
