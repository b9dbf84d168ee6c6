// The full-screen session browser (`conclave tui`, `conclave-tui`): the picker over
// every session in the store, deleting allowed, in the terminal's alternate screen so
// leaving it restores what was there.
import { UsageError } from '@resume/core/spec';
import type { TuiBackend } from '../backend/tui-backend.js';
import { type PickedSession, SessionPicker } from '../picker/index.js';
import { runScreen } from '../render/run-screen.js';
import { resolveScreenIo, type ScreenIo } from '../render/screen-io.js';

export async function openSessionBrowser(
  backend: TuiBackend,
  options: ScreenIo & { workspaceDir?: string } = {},
): Promise<PickedSession | null> {
  const io = resolveScreenIo(options);
  if (!io.interactive) {
    throw new UsageError('The session browser needs a terminal.', {
      hint: 'Use `conclave sessions list` and `conclave sessions show <id>` in scripts.',
    });
  }
  return runScreen<PickedSession | null>(
    io,
    (done) => (
      <SessionPicker
        backend={backend}
        onDone={done}
        heading="Conclave sessions"
        allowDelete
        allWorkspaces
        {...(options.workspaceDir === undefined ? {} : { workspaceDir: options.workspaceDir })}
      />
    ),
    null,
    { alternateScreen: true },
  );
}

/** The command that does what the user picked, for the standalone browser to print. */
export function commandFor(picked: PickedSession): string {
  return picked.action === 'resume'
    ? `conclave --resume ${picked.sessionId}`
    : `conclave --resume ${picked.sessionId} "<follow-up>"`;
}
