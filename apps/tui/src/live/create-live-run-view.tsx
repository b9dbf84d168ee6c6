// `createLiveRunView()`: what the CLI feeds a run's events into. In a terminal it
// mounts the Ink view; otherwise (piped, CI) it writes plain lines, one per finished
// turn, notice and result, and nothing that redraws.
import { render } from 'ink';
import { useSyncExternalStore } from 'react';
import { writePlain } from '../render/plain-prompt.js';
import { type ResolvedScreenIo, resolveScreenIo, type ScreenIo } from '../render/screen-io.js';
import { registerLiveView } from '../render/terminal-owner.js';
import { ScreenEnvironmentProvider } from '../theme/theme-context.js';
import {
  initialLiveRunState,
  type LiveRunAction,
  type LiveRunEvent,
  type LiveRunResult,
  type LiveRunState,
  liveRunReducer,
} from './live-run-reducer.js';
import { LiveRunView, staticItemText } from './live-run-view.js';

export interface LiveRunHandle {
  onEvent(event: LiveRunEvent): void;
  /** Shows the outcome (and the resume command after an interrupt), then releases the terminal. */
  finish(result: LiveRunResult): Promise<void>;
}

/** Holds the reducer state outside React so events can arrive from anywhere. */
function createLiveRunStore() {
  let state = initialLiveRunState;
  const listeners = new Set<() => void>();
  return {
    getState: () => state,
    dispatch(action: LiveRunAction) {
      state = liveRunReducer(state, action);
      for (const listener of listeners) listener();
    },
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
type LiveRunStore = ReturnType<typeof createLiveRunStore>;

/** `printed`: items an earlier (suspended) instance already printed, not printed again. */
function ConnectedLiveRunView(props: { store: LiveRunStore; printed: number }) {
  const state: LiveRunState = useSyncExternalStore(props.store.subscribe, props.store.getState);
  return <LiveRunView state={props.printed === 0 ? state : { ...state, items: state.items.slice(props.printed) }} />;
}

export function createLiveRunView(io: ScreenIo = {}): LiveRunHandle {
  const resolved = resolveScreenIo(io);
  return resolved.interactive ? createInkLiveRunView(resolved) : createPlainLiveRunView(resolved);
}

function createInkLiveRunView(io: ResolvedScreenIo): LiveRunHandle {
  const store = createLiveRunStore();
  // No input is read, so the terminal stays in cooked mode and Ctrl+C reaches the CLI's
  // SIGINT handler, which checkpoints and exits.
  const mount = (printed: number) =>
    render(
      <ScreenEnvironmentProvider value={io.environment}>
        <ConnectedLiveRunView store={store} printed={printed} />
      </ScreenEnvironmentProvider>,
      // Only mounted on a terminal (see above): drawn live even when CI is set in the environment.
      {
        stdout: io.stdout,
        stderr: io.stderr,
        stdin: io.stdin,
        exitOnCtrlC: false,
        patchConsole: false,
        interactive: true,
      },
    );
  let instance: ReturnType<typeof render> | null = mount(0);
  let finished = false;
  /** `erase`: the live area (status line, streaming turn) is taken off the screen, for a prompt to draw there. */
  const unmount = async (erase: boolean) => {
    const current = instance;
    instance = null;
    if (!current) return;
    await current.waitUntilRenderFlush();
    if (erase) current.clear();
    current.unmount();
    await current.waitUntilExit().catch(() => undefined);
  };
  // After a prompt the view is drawn again with the run's next event, not at once: a first
  // frame drawn right below the prompt's last one would stay behind as a stale status line.
  /** While suspended: the items the earlier instance printed. */
  let printedBeforePrompt: number | null = null;
  const unregister = registerLiveView({
    // What was printed stays; the status line would otherwise be left above the prompt, stale.
    suspend: async () => {
      printedBeforePrompt = store.getState().items.length;
      await unmount(true);
    },
    resume: () => undefined,
  });
  return {
    onEvent(event) {
      if (finished) return;
      store.dispatch({ type: 'event', event });
      if (printedBeforePrompt !== null && instance === null) {
        instance = mount(printedBeforePrompt);
        printedBeforePrompt = null;
      }
    },
    async finish(result) {
      if (finished) return;
      finished = true;
      unregister();
      // A suspended view is mounted once more to print the outcome.
      if (instance === null) instance = mount(printedBeforePrompt ?? store.getState().items.length);
      store.dispatch({ type: 'finished', result });
      await unmount(false);
    },
  };
}

function createPlainLiveRunView(io: ResolvedScreenIo): LiveRunHandle {
  let state = initialLiveRunState;
  let written = 0;
  let lastProgress = '';
  const writeNewItems = () => {
    for (const item of state.items.slice(written)) io.stdout.write(`${staticItemText(item)}\n`);
    written = state.items.length;
  };
  let finished = false;
  return {
    onEvent(event) {
      if (finished) return;
      state = liveRunReducer(state, { type: 'event', event });
      writeNewItems();
      // Progress is printed when it moves, so a log shows where the run was.
      if (event.type === 'progress') {
        const line =
          event.total === null ? `${event.label} ${event.done}` : `${event.label} ${event.done}/${event.total}`;
        if (line !== lastProgress) {
          lastProgress = line;
          writePlain(io.stdout, `· ${line}\n`);
        }
      }
    },
    async finish(result) {
      if (finished) return;
      finished = true;
      state = liveRunReducer(state, { type: 'finished', result });
      writeNewItems();
    },
  };
}
