// The one masking of passwords in URLs and connection strings, for everything shown to a user
// (config, errors, logs, the TUI, the process title) and, with `[REDACTED]`, for the shapes the
// redactor scrubs from what is journaled.

/**
 * `scheme://user:password@host`: the user may be empty, the password may hold an unencoded `@`
 * (the host starts after the last `@` before the path).
 */
export const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:)[^\s/?#]+@/gi;

/** `?password=…`, `&sslpassword=…`, `&token=…`, `&api_key=…` in a query string. */
const QUERY_SECRET = /([?&][a-z0-9_.-]*(?:pass|pwd|secret|token|key)[a-z0-9_.-]*=)[^&\s#]+/gi;

/** `password=…` in a libpq key=value connection string (`host=db password='a b' dbname=x`). */
const KEYWORD_PASSWORD = /(\bpassword\s*=\s*)(?:'[^']*'|[^\s'&#]+)/gi;

/** The text with every password of a URL or connection string in it replaced by `mask`. */
export function maskUrlCredentials(text: string, mask = '***'): string {
  if (!text.includes('@') && !text.includes('=')) return text;
  const replacement = mask.replaceAll('$', '$$$$');
  return text
    .replace(URL_PASSWORD, `$1${replacement}@`)
    .replace(QUERY_SECRET, `$1${replacement}`)
    .replace(KEYWORD_PASSWORD, `$1${replacement}`);
}
