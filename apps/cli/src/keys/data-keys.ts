// The data keys that encrypt the sessions at rest (docs/encryption.md), as the CLI finds them:
// the home's key files (`<home>/keys/data/<id>.key`, 0600, and `current` naming the key new data
// is sealed with), and a key supplied from outside the home for a secrets manager:
// `$CONCLAVE_ENCRYPTION_KEY` (the key), `$CONCLAVE_ENCRYPTION_KEY_FILE` (a file holding it) or
// `$CONCLAVE_ENCRYPTION_KEY_COMMAND` (a command that prints it). A supplied key is current when
// encryption is on; every key found opens what it sealed, whether encryption is on or not.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  createKeyring,
  type DataKey,
  generateDataKey,
  type Keyring,
  keyIdFor,
  parseDataKey,
} from '@resume/core/encryption';
import { UsageError } from '@resume/core/spec';
import { writeOutputFile } from '../output/output-file.js';

export const KEY_ENV = 'CONCLAVE_ENCRYPTION_KEY';
export const KEY_FILE_ENV = 'CONCLAVE_ENCRYPTION_KEY_FILE';
export const KEY_COMMAND_ENV = 'CONCLAVE_ENCRYPTION_KEY_COMMAND';
const CURRENT = 'current';
const KEY_SUFFIX = '.key';
const keyIdPattern = /^[0-9a-f]{12}$/;

/** Where the home keeps its data keys (the signing keys live elsewhere in `keys/`). */
export const dataKeyDirectory = (home: string): string => path.join(home, 'keys', 'data');

export interface FoundKey extends DataKey {
  /** Where it came from: its file, or the environment variable that supplied it. */
  source: string;
  createdAt: string | null;
}

/** The home's data keys, oldest first, and the id `current` names (null when none). */
export function homeDataKeys(home: string): { keys: FoundKey[]; current: string | null } {
  const directory = dataKeyDirectory(home);
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return { keys: [], current: null };
  }
  const keys = names
    .filter((name) => name.endsWith(KEY_SUFFIX) && keyIdPattern.test(name.slice(0, -KEY_SUFFIX.length)))
    .map((name) => {
      const file = path.join(directory, name);
      const key = parseDataKey(readFileSync(file, 'utf8'), file);
      const id = name.slice(0, -KEY_SUFFIX.length);
      if (keyIdFor(key) !== id) {
        throw new UsageError(`${file} holds key ${keyIdFor(key)}, not the key ${id} its name says.`, {
          hint: `Rename it to ${keyIdFor(key)}${KEY_SUFFIX}, or put back the file that held ${id}.`,
        });
      }
      return { id, key, source: file, createdAt: statSync(file).mtime.toISOString() };
    })
    .sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? ''));
  let current: string | null = null;
  try {
    current = readFileSync(path.join(directory, CURRENT), 'utf8').trim() || null;
  } catch {
    current = null;
  }
  return { keys, current };
}

/**
 * Where the config says the key comes from (`encryption.keyFile`, `encryption.keyCommand`), with
 * the config file that said it (named in every error). The file is absolute; the command runs in
 * its config file's directory.
 */
export interface ConfiguredKeySource {
  file: string | null;
  command: string | null;
  /** The config file that set `encryption.keyFile`, and the one that set `encryption.keyCommand`. */
  fileSource?: string | undefined;
  commandSource?: string | undefined;
}

/** The config's key sources as the loaded config has them (`config.encryptionKey` and its sources). */
export function configuredKeySource(loaded: {
  config: { encryptionKey: { file: string | null; command: string | null } };
  sources: Record<string, string>;
}): ConfiguredKeySource {
  return {
    ...loaded.config.encryptionKey,
    fileSource: loaded.sources['encryptionKey.file'],
    commandSource: loaded.sources['encryptionKey.command'],
  };
}

/** Reads a key file; `what` names where it was given, for the error. */
function readKeyFile(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the encryption key file ${file} (${what}): ${(error as Error).message}`, {
      hint: `Point ${what} at the file that holds the key (32 bytes as base64, or 64 hex digits).`,
    });
  }
}

/** Runs a key command with `/bin/sh -c` in `cwd`; its output, or an error naming `what`. */
function runKeyCommand(command: string, cwd: string, what: string): string {
  try {
    return execFileSync('/bin/sh', ['-c', command], {
      cwd,
      encoding: 'utf8',
      timeout: 30_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new UsageError(
      `The command in ${what} did not print an encryption key: ${stderr || (error as Error).message}`,
      {
        hint: `Run \`${command}\` yourself to see why, or change ${what}.`,
      },
    );
  }
}

/** A config file's directory (where its relative key file is, and its key command runs). */
const configDirectory = (source: string | undefined, cwd: string): string =>
  source && path.isAbsolute(source) ? path.dirname(source) : cwd;

/**
 * The key supplied from outside the home, or null: the environment first
 * (`$CONCLAVE_ENCRYPTION_KEY`, `_FILE`, `_COMMAND`), then the config's `encryption.keyFile` or
 * `encryption.keyCommand`.
 */
export function suppliedKey(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  configured: ConfiguredKeySource | null = null,
): FoundKey | null {
  const make = (text: string, source: string): FoundKey => {
    const key = parseDataKey(text, source);
    return { id: keyIdFor(key), key, source, createdAt: null };
  };
  if (env[KEY_ENV]) return make(env[KEY_ENV], `$${KEY_ENV}`);
  const file = env[KEY_FILE_ENV];
  if (file) return make(readKeyFile(path.resolve(cwd, file), `$${KEY_FILE_ENV}`), `${file} ($${KEY_FILE_ENV})`);
  const command = env[KEY_COMMAND_ENV];
  if (command) return make(runKeyCommand(command, cwd, `$${KEY_COMMAND_ENV}`), `the output of $${KEY_COMMAND_ENV}`);
  if (configured?.file && configured.command) {
    throw new UsageError(
      `The config sets both encryption.keyFile (${configured.fileSource ?? 'config'}) and encryption.keyCommand (${configured.commandSource ?? 'config'}); the key comes from one place.`,
      { hint: 'Keep one of the two.' },
    );
  }
  if (configured?.file) {
    const where = `encryption.keyFile in ${configured.fileSource ?? 'the config'}`;
    return make(readKeyFile(configured.file, where), `${configured.file} (${where})`);
  }
  if (configured?.command) {
    const where = `encryption.keyCommand in ${configured.commandSource ?? 'the config'}`;
    return make(
      runKeyCommand(configured.command, configDirectory(configured.commandSource, cwd), where),
      `the output of ${where}`,
    );
  }
  return null;
}

export interface KeyringChoice {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** `encryption: on` in the config: new data is sealed, with the supplied key or the home's current one. */
  encrypt: boolean;
  /** The config's `encryption.keyFile` / `encryption.keyCommand`. */
  configured?: ConfiguredKeySource | null;
}

/** The keyring the store gets: null when there is no key at all and encryption is off. */
export function loadKeyring(choice: KeyringChoice): Keyring | null {
  const home = homeDataKeys(choice.home);
  const supplied = suppliedKey(choice.env, choice.cwd, choice.configured ?? null);
  const all = supplied ? [...home.keys, supplied] : home.keys;
  if (!choice.encrypt && all.length === 0) return null;
  const current = choice.encrypt ? (supplied?.id ?? home.current) : null;
  if (choice.encrypt && (current === null || !all.some((key) => key.id === current))) {
    throw new UsageError(
      current === null
        ? 'Encryption is on (encryption: on in the config) but there is no key to encrypt with.'
        : `Encryption is on but the current key ${current} (${path.join(dataKeyDirectory(choice.home), CURRENT)}) has no key file.`,
      {
        hint: `Create one with: conclave keys init   (or supply one in $${KEY_ENV}, $${KEY_FILE_ENV}, $${KEY_COMMAND_ENV}, or encryption.keyFile / encryption.keyCommand in the config)`,
      },
    );
  }
  return createKeyring({ keys: Object.fromEntries(all.map((key) => [key.id, key.key])), current });
}

/** Writes a new key file 0600 (atomically) and makes it current; returns the key. */
export function addHomeKey(home: string): DataKey {
  const directory = dataKeyDirectory(home);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);
  const key = generateDataKey();
  // Synced before it is named current: a crash never leaves a current key that is empty on disk.
  writeOutputFile(path.join(directory, `${key.id}${KEY_SUFFIX}`), `${Buffer.from(key.key).toString('base64')}\n`, {
    force: false,
  });
  writeOutputFile(path.join(directory, CURRENT), `${key.id}\n`, { force: true });
  return key;
}

/** Removes a key file (the caller checked that nothing needs it any more). */
export function retireHomeKey(home: string, id: string): void {
  rmSync(path.join(dataKeyDirectory(home), `${id}${KEY_SUFFIX}`));
}
