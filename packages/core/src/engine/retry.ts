// Backoff between attempts of a durable step.
import type { RetryPolicy } from './types.js';

export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const initial = policy.backoff?.initialMs ?? 1000;
  const factor = policy.backoff?.factor ?? 2;
  const max = policy.backoff?.maxMs ?? 30_000;
  return Math.min(max, initial * factor ** Math.max(0, attempt - 1));
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
