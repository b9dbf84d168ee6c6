// The public keys this home trusts (`keys trust <file> --name <name>`): one file per name,
// `<home>/keys/trusted/<name>.pub`, holding the key file as `keys export-public` writes it. An
// import names a bundle's signer by the name it was trusted under.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { FileNotFoundError, UsageError } from '@resume/core/spec';
import { writeOutputFile } from '../output/output-file.js';
import { fingerprintOf, formatPublicKeys, KEYS_FOLDER, type PublicKeys, readPublicKeyFile } from './home-key.js';

const TRUSTED_FOLDER = 'trusted';
const EXTENSION = '.pub';
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export interface TrustedKey {
  name: string;
  fingerprint: string;
  keys: PublicKeys;
}

function trustedFolder(home: string): string {
  return path.join(home, KEYS_FOLDER, TRUSTED_FOLDER);
}

/** Every trusted key, by name. A file that no longer reads is skipped (it trusts nothing). */
export function listTrustedKeys(home: string): TrustedKey[] {
  let names: string[];
  try {
    names = readdirSync(trustedFolder(home)).filter((entry) => entry.endsWith(EXTENSION));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const trusted: TrustedKey[] = [];
  for (const entry of names.sort()) {
    const name = entry.slice(0, -EXTENSION.length);
    try {
      const keys = readPublicKeyFile(path.join(trustedFolder(home), entry));
      if (keys.signing) trusted.push({ name, fingerprint: fingerprintOf(keys.signing), keys });
    } catch (error) {
      if (!UsageError.isInstance(error) && !FileNotFoundError.isInstance(error)) throw error;
    }
  }
  return trusted;
}

export function trustKey(home: string, file: string, name: string): TrustedKey {
  if (!NAME_PATTERN.test(name))
    throw new UsageError(`"${name}" is not a plain name for a trusted key.`, {
      hint: 'Use letters, digits, ".", "_", "@" or "-" (at most 64 characters, no "/"): --name alice',
    });
  const keys = readPublicKeyFile(file);
  if (!keys.signing)
    throw new UsageError(`${file} has no Ed25519 signing key, so it cannot vouch for exports.`, {
      hint: 'Ask its owner for the file conclave keys export-public writes.',
    });
  const fingerprint = fingerprintOf(keys.signing);
  const existing = listTrustedKeys(home);
  const sameKey = existing.find((key) => key.fingerprint === fingerprint);
  if (sameKey)
    throw new UsageError(`The key ${fingerprint} is already trusted as ${sameKey.name}.`, {
      hint: `To trust it under another name, remove it first: conclave keys trust --remove ${sameKey.name}`,
    });
  const sameName = existing.find((key) => key.name.toLowerCase() === name.toLowerCase());
  if (sameName)
    throw new UsageError(`The name ${sameName.name} already stands for the key ${sameName.fingerprint}.`, {
      hint: `Choose another name, or remove it first: conclave keys trust --remove ${sameName.name}`,
    });
  mkdirSync(trustedFolder(home), { recursive: true, mode: 0o700 });
  writeOutputFile(path.join(trustedFolder(home), `${name}${EXTENSION}`), formatPublicKeys(keys, 'pem'), {
    force: false,
  });
  return { name, fingerprint, keys };
}

export function distrustKey(home: string, name: string): TrustedKey {
  const trusted = listTrustedKeys(home).find((key) => key.name.toLowerCase() === name.toLowerCase());
  if (!trusted)
    throw new UsageError(`No trusted key is named "${name}".`, {
      hint: 'The trusted keys: conclave keys trust --list',
    });
  rmSync(path.join(trustedFolder(home), `${trusted.name}${EXTENSION}`));
  return trusted;
}
