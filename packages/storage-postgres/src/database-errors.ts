// Turns driver errors into ConclaveErrors whose messages name the store (masked) and
// say what to do. Errors Conclave raised on purpose pass through unchanged.
import { ConclaveError, StoreIoError } from '@resume/core/spec';

interface DriverError {
  code?: unknown;
  message?: unknown;
}

const connectionCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENOENT']);

/** The SQLSTATE (or socket error code) of a driver error, if any. */
export function databaseErrorCode(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = (error as DriverError).code;
  return typeof code === 'string' ? code : null;
}

export function translateDatabaseError(error: unknown, location: string, action: string): ConclaveError {
  if (ConclaveError.isInstance(error)) return error;
  const code = databaseErrorCode(error);
  const detail =
    typeof error === 'object' && error !== null && typeof (error as DriverError).message === 'string'
      ? ((error as DriverError).message as string)
      : String(error);
  const unreachable =
    (code !== null && connectionCodes.has(code)) ||
    (code !== null && /^(08|57P0)/.test(code)) || // connection exceptions, server shutting down
    /Connection terminated|server closed the connection|terminating connection/i.test(detail);
  return new StoreIoError(`The PostgreSQL store at ${location} could not ${action}: ${detail}`, location, {
    cause: error,
    hint:
      settingsHint(code, detail) ??
      (unreachable
        ? 'Check that the server is running and the store URL is right; what was saved before this is kept, and the session can be resumed once the server is back.'
        : (sslHint(code, detail) ?? 'Retry; if it keeps failing, check the server log.')),
  });
}

/** What to change when the server refused the store URL's database, user or password, or null. */
function settingsHint(code: string | null, detail: string): string | null {
  if (code === '3D000') {
    const name = /database "([^"]*)" does not exist/.exec(detail)?.[1];
    const database = name === undefined ? 'the database' : `"${name}"`;
    return `The server has no database ${database}: create it (createdb ${name ?? '<name>'}) or name an existing one in the store URL.`;
  }
  if (code === '28P01' || code === '28000') {
    return "The server refused the store URL's user or its password: check the user in the URL and the password given (in the URL, PGPASSWORD or ~/.pgpass).";
  }
  return null;
}

/** What to change in the store URL when the SSL handshake failed, or null when it did not. */
function sslHint(code: string | null, detail: string): string | null {
  if (/does not support SSL/i.test(detail)) {
    return 'The server does not offer SSL: enable it on the server, or connect without it (sslmode=disable).';
  }
  if ((code !== null && /CERT|SELF_SIGNED|ERR_TLS|UNABLE_TO_VERIFY/.test(code)) || /certificate/i.test(detail)) {
    return "The server's certificate was not accepted: name the CA that signed it with sslrootcert=/path/to/root.crt in the store URL (verify-full also needs the host name the certificate was made for), or use sslmode=require to encrypt without checking it.";
  }
  return null;
}
