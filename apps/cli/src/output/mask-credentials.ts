// Store URLs may carry a password (`postgres://user:secret@host/db`); whatever the CLI prints
// shows it as `***`, in text and in --json alike (core's maskUrlCredentials).
import { maskUrlCredentials } from '@resume/core/spec';

export { maskUrlCredentials };

/** A copy of a JSON-like value with `maskUrlCredentials` applied to every string in it. */
export function maskCredentialsIn<T>(value: T): T {
  if (typeof value === 'string') return maskUrlCredentials(value) as T;
  if (Array.isArray(value)) return value.map((item) => maskCredentialsIn(item)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskCredentialsIn(item)])) as T;
  }
  return value;
}
