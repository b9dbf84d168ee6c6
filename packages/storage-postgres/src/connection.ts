// Options, connection pools and the masking of secrets in connection strings.
// A connection string may carry a password: it is used to connect and nowhere else
// (never in `location`, error messages or anything journaled).

import { accessSync, constants } from 'node:fs';
import type { Keyring, KeyringOptions } from '@resume/core/encryption';
import { fileAccessError, maskUrlCredentials, UsageError } from '@resume/core/spec';
import pg from 'pg';
import { z } from 'zod';
import type { ServerWaitListener } from './server-wait.js';

const schemaNamePattern = /^[a-z_][a-z0-9_]{0,62}$/;

export const postgresStoreOptionsSchema = z
  .object({
    /** `postgres://user:password@host:port/database` (the password is never shown). */
    connectionString: z.string().min(1).optional(),
    /** A pool the caller owns (not ended by `close()`). Takes precedence over connectionString. */
    pool: z
      .custom<pg.Pool>(
        // Duck-typed: a pool from another install of `pg` is just as good.
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          typeof (value as { connect?: unknown }).connect === 'function' &&
          typeof (value as { query?: unknown }).query === 'function',
        'a pg Pool',
      )
      .optional(),
    /** The PostgreSQL schema holding Conclave's tables (default `conclave`). */
    schema: z
      .string()
      .regex(schemaNamePattern, 'a schema name is lowercase letters, digits and underscores, at most 63')
      .default('conclave'),
    /** How long a lease lives without a heartbeat (default 30 s). */
    leaseTtlMs: z.number().int().positive().default(30_000),
    /** How often a held lease is renewed (default a third of the TTL). */
    heartbeatMs: z.number().int().positive().optional(),
    /** This machine's name for leases (default the OS host name). */
    holderHost: z.string().min(1).optional(),
    /** Largest number of connections of a pool the store creates itself (default 10). */
    maxConnections: z.number().int().positive().default(10),
    /**
     * Told when an operation has waited `waitNoticeMs` for the server (frozen, or unreachable
     * without the connection closing), again every twice that long, and once when it answered.
     */
    onWaiting: z.custom<ServerWaitListener>((value) => typeof value === 'function', 'a function').optional(),
    /** How long an operation waits for the server before `onWaiting` is told (default 5 s). */
    waitNoticeMs: z.number().int().positive().default(5_000),
    /**
     * Encryption at rest (docs/encryption.md): the keys, or a Keyring over your KMS. With a
     * current key everything a session says is sealed before it reaches the server.
     */
    encryption: z
      .custom<Keyring | KeyringOptions>(
        (value) => typeof value === 'object' && value !== null,
        'a Keyring, or { keys, current }',
      )
      .nullable()
      .optional(),
  })
  .refine((options) => options.connectionString !== undefined || options.pool !== undefined, {
    message: 'give either connectionString or pool',
  });

export type PostgresStoreOptions = z.input<typeof postgresStoreOptionsSchema>;
export type ResolvedPostgresStoreOptions = z.output<typeof postgresStoreOptionsSchema>;

export function parseStoreOptions(options: PostgresStoreOptions): ResolvedPostgresStoreOptions {
  const result = postgresStoreOptionsSchema.safeParse(options);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'options'}: ${issue.message}`);
    throw new UsageError(`Invalid PostgreSQL store options: ${problems.join('; ')}.`);
  }
  return result.data;
}

/** Whether a store URL selects the PostgreSQL store (`postgres://` or `postgresql://`). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(url.trim());
}

/** The connection string with its password (and any password parameter) replaced by `***`. */
export function maskConnectionString(connectionString: string): string {
  return maskUrlCredentials(connectionString);
}

/** Where the data lives, for messages: host, database and schema, never a secret. */
export function describeLocation(options: ResolvedPostgresStoreOptions): string {
  if (options.connectionString !== undefined && options.pool === undefined) {
    return `${maskConnectionString(options.connectionString)} (schema ${options.schema})`;
  }
  return `postgres (caller's pool, schema ${options.schema})`;
}

/** The server's host and port, for messages (never a secret). */
export function describeServer(options: ResolvedPostgresStoreOptions): string {
  if (options.connectionString === undefined || options.pool !== undefined) return "the caller's pool";
  if (!URL.canParse(options.connectionString)) return 'the server in the connection string';
  const url = new URL(options.connectionString);
  return url.host || new URLSearchParams(url.search).get('host') || 'localhost';
}

export interface OwnedPool {
  pool: pg.Pool;
  /** Whether `close()` ends the pool (only pools the store created). */
  owned: boolean;
}

export function openPool(options: ResolvedPostgresStoreOptions): OwnedPool {
  if (options.pool) return { pool: options.pool, owned: false };
  const pool = new pg.Pool({
    connectionString: options.connectionString === undefined ? undefined : withLibpqSslModes(options.connectionString),
    max: options.maxConnections,
    application_name: 'conclave',
  });
  // An idle connection dropped by the server emits 'error' on the pool; unhandled it would
  // crash the process. The next query reports the problem through the store instead.
  pool.on('error', () => {});
  return { pool, owned: true };
}

const sslModes = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full'];

/**
 * The connection string with `sslmode` meaning what it means to libpq: `require` (and
 * `prefer`) encrypt without checking the certificate, `verify-ca` checks that a CA in
 * `sslrootcert` signed it, `verify-full` also checks the host name. The driver reads them
 * that way only when asked to (`uselibpqcompat=true`); otherwise it checks everything and
 * prints a warning of its own. Certificate files are checked here, so a missing one is
 * named as such rather than as an unreachable server.
 */
export function withLibpqSslModes(connectionString: string): string {
  if (!URL.canParse(connectionString)) return connectionString;
  const parameters = new URL(connectionString).searchParams;
  const mode = parameters.get('sslmode');
  if (mode === null) return connectionString;
  const masked = maskConnectionString(connectionString);
  if (!sslModes.includes(mode)) {
    throw new UsageError(`The store URL ${masked} has sslmode=${mode}, which is not an SSL mode.`, {
      hint: `Use one of ${sslModes.join(', ')} (require encrypts without checking the certificate; verify-full checks it and the host name).`,
    });
  }
  for (const name of ['sslrootcert', 'sslcert', 'sslkey']) {
    const file = parameters.get(name);
    if (file === null) continue;
    try {
      accessSync(file, constants.R_OK);
    } catch (error) {
      throw fileAccessError(error, file, 'read') ?? error;
    }
  }
  if (mode === 'verify-ca' && parameters.get('sslrootcert') === null) {
    throw new UsageError(
      `The store URL ${masked} has sslmode=verify-ca but no sslrootcert: the CA certificate to check the server's against.`,
      {
        hint: 'Add sslrootcert=/path/to/root.crt (the CA that signed the server certificate), or use sslmode=require to encrypt without checking it.',
      },
    );
  }
  if (parameters.has('uselibpqcompat')) return connectionString;
  const hashAt = connectionString.indexOf('#');
  const [base, fragment] =
    hashAt === -1 ? [connectionString, ''] : [connectionString.slice(0, hashAt), connectionString.slice(hashAt)];
  return `${base}${base.includes('?') ? '&' : '?'}uselibpqcompat=true${fragment}`;
}

/** Quotes an already validated identifier. */
export function quoteIdentifier(name: string): string {
  if (!schemaNamePattern.test(name)) throw new UsageError(`"${name}" is not a valid PostgreSQL schema name.`);
  return `"${name}"`;
}
