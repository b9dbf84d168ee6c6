// A step (or a sleep) that never returns, for tests that kill its process while it is in flight,
// and a way to wait until it is reached instead of sleeping a while. Used by this package's tests.

export interface Hang {
  /** Never settles. */
  hang(): Promise<never>;
  /** Resolves once `hang` has been called once more than the calls already waited for. */
  reached(): Promise<void>;
}

export function createHang(): Hang {
  let calls = 0;
  let waited = 0;
  let wake: (() => void) | null = null;
  return {
    hang() {
      calls += 1;
      wake?.();
      return new Promise<never>(() => {});
    },
    async reached() {
      while (calls <= waited) await new Promise<void>((resolve) => (wake = resolve));
      waited += 1;
    },
  };
}
