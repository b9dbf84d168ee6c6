// Store URLs may carry a password (`postgres://user:secret@host/db`); whatever the CLI prints
// shows it as `***`, in text and in --json alike.

const credentials = /([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]*@/gi;

/** The text with the password of every URL in it replaced by `***`. */
export function maskUrlCredentials(text: string): string {
  return text.replace(credentials, '$1:***@');
}

/** A copy of a JSON-like value with `maskUrlCredentials` applied to every string in it. */
export function maskCredentialsIn<T>(value: T): T {
  if (typeof value === 'string') return maskUrlCredentials(value) as T;
  if (Array.isArray(value)) return value.map((item) => maskCredentialsIn(item)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskCredentialsIn(item)])) as T;
  }
  return value;
}
