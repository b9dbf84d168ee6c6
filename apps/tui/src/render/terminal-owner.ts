// Only one Ink instance may draw on a stream at a time. While a run's live view is on
// screen, a prompt (uncertain step, conflicts) first suspends it and resumes it after.
export interface SuspendableView {
  suspend(): Promise<void>;
  resume(): void;
}

let liveView: SuspendableView | null = null;

export function registerLiveView(view: SuspendableView): () => void {
  liveView = view;
  return () => {
    if (liveView === view) liveView = null;
  };
}

/** Runs `show` with the terminal to itself. */
export async function withTerminal<T>(show: () => Promise<T>): Promise<T> {
  const suspended = liveView;
  if (suspended) await suspended.suspend();
  try {
    return await show();
  } finally {
    suspended?.resume();
  }
}
