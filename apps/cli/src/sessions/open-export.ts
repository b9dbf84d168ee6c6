// Opening an export file for `sessions import`, `sessions verify` and a session reference
// that is an export's path: decrypted when it is encrypted (with the key or passphrase given,
// else this home's key), validated, its signature checked, and its signer named as this home
// knows it. A bundle that is not signed by a known key is refused when signatures are required.
import path from 'node:path';
import { ConclaveError, UsageError } from '@resume/core/spec';
import { readUserFile, USER_FILE_LIMITS } from '@resume/runner';
import type { CliContext } from '../context/cli-context.js';
import { fingerprintOf, readHomeKey, readPrivateKeyFile } from '../keys/home-key.js';
import { decryptExport, isEncryptedExport, MIN_PASSPHRASE_LENGTH, type Opening } from './bundle-encryption.js';
import { describeSigner, type Signer, signerOf } from './bundle-signature.js';
import { type ExportFile, integrityNote, parseExportJson, readExportFile, validateExport } from './export-file.js';

const TRUST_HINT =
  'If you trust its author, add their public key: conclave keys trust <their public key file> --name <name>';

export interface OpenedExport {
  data: ExportFile;
  signer: Signer;
  /** How the file was encrypted, said as the import reports it; null when it was not. */
  encryption: string | null;
}

/** `--key`, `--passphrase`, `--passphrase-file`: what opens an encrypted export (files relative to the cwd). */
export interface ExportKeyOptions {
  key?: string | undefined;
  passphrase?: string | undefined;
  passphraseFile?: string | undefined;
}

export function openExportFile(context: CliContext, file: string, options: ExportKeyOptions = {}): OpenedExport {
  const home = context.config().config.home;
  const homeKey = readHomeKey(home);
  let raw = parseExportJson(readExportFile(file), file);
  let encryption: string | null = null;
  if (isEncryptedExport(raw)) {
    const cwd = context.environment.cwd;
    const given = options.key ? readPrivateKeyFile(path.resolve(cwd, options.key)) : null;
    const opening: Opening = {
      key: given ?? homeKey,
      homeKey: given === null,
      passphrase: readPassphrase(options, cwd),
    };
    const opened = decryptExport(raw, file, opening);
    raw = parseExportJson(opened.text, file);
    if (isEncryptedExport(raw)) throw new UsageError(`${file} is encrypted twice; Conclave writes one envelope.`);
    encryption = opened.openedWith === 'passphrase' ? 'encrypted with a passphrase' : describeReceiver(opening);
  } else if (options.key || options.passphrase !== undefined || options.passphraseFile) {
    context.terminal.note(`${file} is not encrypted; the key or passphrase given was not needed.`);
  }
  const data = validateExport(raw, file);
  return { data, signer: signerOf(data.signature, home, homeKey), encryption };
}

/**
 * Refuses a bundle not signed by this home or a trusted key when `--require-signed` or
 * `imports.requireSigned` asks for signatures (its code exits 65: the data is not acceptable as it is).
 */
export function requireSigner(context: CliContext, file: string, signer: Signer, flag: boolean): void {
  if (signer.status === 'this-home' || signer.status === 'trusted') return;
  const configured = context.config().config.imports.requireSigned;
  if (!flag && !configured) return;
  const why = flag
    ? '--require-signed'
    : `imports.requireSigned (${context.config().sources['imports.requireSigned']})`;
  throw new ConclaveError(
    'signature-required',
    `${file} is ${describeSigner(signer)}, and ${why} accepts only bundles signed by this home or a trusted key.`,
    {
      hint:
        signer.status === 'unknown'
          ? `Nothing was imported. ${TRUST_HINT}`
          : 'Nothing was imported. Ask for an export signed by a key you trust (its author runs conclave keys init, then exports again).',
    },
  );
}

/** Says who signed an opened export, for the line an import or verify prints. */
export function describeOpened(opened: OpenedExport): string {
  return [opened.encryption, describeSigner(opened.signer)].filter((part) => part !== null).join(', ');
}

/** What the signer means for the reader: how to trust an unknown key, what an unsigned bundle proves. */
export function noteSigner(context: CliContext, opened: OpenedExport): void {
  if (opened.signer.status === 'unsigned') context.terminal.note(integrityNote(opened.data));
  else if (opened.signer.status === 'unknown')
    context.terminal.note(`The signature holds, but this home does not know the key. ${TRUST_HINT}`);
}

function describeReceiver(opening: Opening): string {
  const receiving = opening.key?.publicKeys.receiving;
  if (opening.homeKey) return 'encrypted for this home';
  return `encrypted for ${receiving ? fingerprintOf(receiving) : 'the key given'}`;
}

/** The passphrase given with `--passphrase` or as the first line of `--passphrase-file`, or null. */
export function readPassphrase(options: ExportKeyOptions, cwd: string): string | null {
  if (options.passphrase !== undefined && options.passphraseFile)
    throw new UsageError('Give the passphrase once: --passphrase or --passphrase-file, not both.');
  if (options.passphraseFile) {
    const file = path.resolve(cwd, options.passphraseFile);
    const text = readUserFile(file, { what: 'passphrase file', maxBytes: USER_FILE_LIMITS.text });
    return checkedPassphrase(text.split(/\r?\n/)[0] ?? '', `The first line of ${file}`);
  }
  if (options.passphrase !== undefined) return checkedPassphrase(options.passphrase, 'The passphrase');
  return null;
}

function checkedPassphrase(passphrase: string, what: string): string {
  if (passphrase.length < MIN_PASSPHRASE_LENGTH)
    throw new UsageError(
      `${what} is ${passphrase.length === 0 ? 'empty' : 'too short'}: a passphrase has at least ${MIN_PASSPHRASE_LENGTH} characters.`,
      {
        hint: 'Choose a longer one (a few words are easy to type and hard to guess).',
      },
    );
  return passphrase;
}
