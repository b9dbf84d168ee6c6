// Test support: a throw-away PostgreSQL cluster (initdb + pg_ctl) in a temporary directory,
// on a free loopback port, stopped and removed after the tests. PostgreSQL refuses to run
// as root, so under root (CI) the cluster belongs to the `postgres` (or `nobody`) user.
// `CONCLAVE_TEST_POSTGRES_URL` points the tests at an existing server instead.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type PostgresAvailability =
  | { available: true; binDirectory: string | null; externalUrl: string | null }
  | { available: false; reason: string };

export interface PostgresCluster {
  /** A connection string for a database the tests may use freely. */
  url: string;
  /** With `ssl`: the server's self-signed certificate (an `sslrootcert` that trusts it). */
  certificateFile: string | null;
  stop(): Promise<void>;
}

/** Where initdb/pg_ctl are: Debian's versioned directories (newest first), then PATH. */
export function findPostgres(environment: NodeJS.ProcessEnv = process.env): PostgresAvailability {
  const externalUrl = environment.CONCLAVE_TEST_POSTGRES_URL;
  if (externalUrl) return { available: true, binDirectory: null, externalUrl };
  const candidates: string[] = [];
  const debianRoot = '/usr/lib/postgresql';
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) candidates.push(path.join(debianRoot, version, 'bin'));
  }
  for (const directory of (environment.PATH ?? '').split(path.delimiter)) if (directory) candidates.push(directory);
  for (const directory of candidates) {
    if (existsSync(path.join(directory, 'initdb')) && existsSync(path.join(directory, 'pg_ctl'))) {
      return { available: true, binDirectory: directory, externalUrl: null };
    }
  }
  return {
    available: false,
    reason:
      'no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin or PATH; run scripts/ensure-postgres.sh as root, or set CONCLAVE_TEST_POSTGRES_URL',
  };
}

/** Prints the loud notice that PostgreSQL tests are skipped, and returns it for the describe title. */
export function announceSkip(availability: PostgresAvailability): string {
  if (availability.available) return '';
  const notice = `PostgreSQL store tests SKIPPED: ${availability.reason}`;
  console.warn(`\n${'!'.repeat(notice.length)}\n${notice}\n${'!'.repeat(notice.length)}\n`);
  return notice;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function userId(name: string): number | null {
  try {
    return Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  } catch {
    return null;
  }
}

export interface ClusterOptions {
  /**
   * Whether the server flushes its WAL to disk (default false: tests kill clients, never the
   * server, so they do not need it; benchmarks do, to compare durable commits with fsync).
   */
  fsync?: boolean;
  /** Serve SSL with a self-signed certificate for `localhost` (default false). */
  ssl?: boolean;
}

/** Starts a cluster (or hands out the external server) for one test file. */
export async function startPostgresCluster(
  availability: PostgresAvailability,
  options: ClusterOptions = {},
): Promise<PostgresCluster> {
  if (!availability.available) throw new Error(availability.reason);
  if (availability.externalUrl) return { url: availability.externalUrl, certificateFile: null, stop: async () => {} };
  const binDirectory = availability.binDirectory ?? '';
  const directory = mkdtempSync(path.join(tmpdir(), 'conclave-pg-'));
  const dataDirectory = path.join(directory, 'data');
  let runAs: string | null = null;
  if (process.getuid?.() === 0) {
    runAs = userId('postgres') !== null ? 'postgres' : 'nobody';
    const uid = userId(runAs);
    if (uid === null) throw new Error('running as root and neither a postgres nor a nobody user exists');
    chownSync(directory, uid, -1);
  }
  const command = async (program: string, args: string[]) => {
    const executable = program === 'openssl' || program === 'chmod' ? program : path.join(binDirectory, program);
    if (runAs) return run('runuser', ['-u', runAs, '--', executable, ...args], { cwd: directory });
    return run(executable, args, { cwd: directory });
  };
  const stop = async () => {
    await command('pg_ctl', ['-D', dataDirectory, '-m', 'immediate', '-w', 'stop']).catch(() => {});
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    await command('initdb', ['-D', dataDirectory, '-A', 'trust', '-U', 'conclave', '-E', 'UTF8', '--no-sync']);
    const certificateFile = options.ssl ? path.join(directory, 'server.crt') : null;
    const keyFile = path.join(directory, 'server.key');
    // The server reads its key only when it is the key file's owner's alone.
    if (certificateFile) {
      await command('openssl', [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-keyout',
        keyFile,
        '-out',
        certificateFile,
      ]);
      await command('chmod', ['600', keyFile]);
    }
    const sslOptions = certificateFile
      ? ` -c ssl=on -c ssl_cert_file=${certificateFile} -c ssl_key_file=${keyFile}`
      : '';
    let lastError: unknown = null;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const port = await freePort();
      const fsync = options.fsync ? 'on' : 'off';
      const serverOptions = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=${fsync} -c max_connections=200${sslOptions}`;
      try {
        await command('pg_ctl', [
          '-D',
          dataDirectory,
          '-o',
          serverOptions,
          '-l',
          path.join(directory, 'log'),
          '-w',
          'start',
        ]);
        return { url: `postgres://conclave@127.0.0.1:${port}/postgres`, certificateFile, stop };
      } catch (error) {
        lastError = error; // the port was taken between probing and starting: try another
      }
    }
    throw lastError;
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * What `pg_dump --data-only` prints of `schema` (of every schema when none is named): the rows
 * as anyone holding a backup of the database sees them.
 */
export async function dumpData(availability: PostgresAvailability, url: string, schema?: string): Promise<string> {
  if (!availability.available) throw new Error(availability.reason);
  const executable = availability.binDirectory ? path.join(availability.binDirectory, 'pg_dump') : 'pg_dump';
  const { stdout } = await run(
    executable,
    ['--data-only', '--no-owner', ...(schema ? ['--schema', schema] : []), '--dbname', url],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  return stdout;
}
