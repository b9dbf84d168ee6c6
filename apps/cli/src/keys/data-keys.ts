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

/** The key supplied from outside the home (environment, file or command), or null. */
export function suppliedKey(env: Readonly<Record<string, string | undefined>>, cwd: string): FoundKey | null {
  const make = (text: string, source: string): FoundKey => {
    const key = parseDataKey(text, source);
    return { id: keyIdFor(key), key, source, createdAt: null };
  };
  if (env[KEY_ENV]) return make(env[KEY_ENV], `$${KEY_ENV}`);
  const file = env[KEY_FILE_ENV];
  if (file) {
    let text: string;
    try {
      text = readFileSync(path.resolve(cwd, file), 'utf8');
    } catch (error) {
      throw new UsageError(
        `Cannot read the encryption key file ${file} ($${KEY_FILE_ENV}): ${(error as Error).message}`,
      );
    }
    return make(text, `${file} ($${KEY_FILE_ENV})`);
  }
  const command = env[KEY_COMMAND_ENV];
  if (command) {
    let text: string;
    try {
      text = execFileSync('/bin/sh', ['-c', command], {
        cwd,
        encoding: 'utf8',
        timeout: 30_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
      throw new UsageError(
        `The command in $${KEY_COMMAND_ENV} did not print an encryption key: ${stderr || (error as Error).message}`,
      );
    }
    return make(text, `the output of $${KEY_COMMAND_ENV}`);
  }
  return null;
}

export interface KeyringChoice {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** `encryption: on` in the config: new data is sealed, with the supplied key or the home's current one. */
  encrypt: boolean;
}

/** The keyring the store gets: null when there is no key at all and encryption is off. */
export function loadKeyring(choice: KeyringChoice): Keyring | null {
  const home = homeDataKeys(choice.home);
  const supplied = suppliedKey(choice.env, choice.cwd);
  const all = supplied ? [...home.keys, supplied] : home.keys;
  if (!choice.encrypt && all.length === 0) return null;
  const current = choice.encrypt ? (supplied?.id ?? home.current) : null;
  if (choice.encrypt && (current === null || !all.some((key) => key.id === current))) {
    throw new UsageError(
      current === null
        ? 'Encryption is on (encryption: on in the config) but there is no key to encrypt with.'
        : `Encryption is on but the current key ${current} (${path.join(dataKeyDirectory(choice.home), CURRENT)}) has no key file.`,
      {
        hint: `Create one with: conclave keys init   (or supply one in $${KEY_ENV}, $${KEY_FILE_ENV} or $${KEY_COMMAND_ENV})`,
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
