// `conclave keys init | export-public | trust`: this home's key pair (signing exports,
// opening exports encrypted for it) and the public keys of others it trusts.
import path from 'node:path';
import { UsageError } from '@resume/core/spec';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { createSigningKey, fingerprintOf, formatPublicKeys, readHomeKey, signingKeyFile } from '../keys/home-key.js';
import { distrustKey, listTrustedKeys, trustKey } from '../keys/trusted-keys.js';
import { STANDARD_OUTPUT, writeOutputFile } from '../output/output-file.js';

function homeOf(context: CliContext): string {
  return context.config().config.home;
}

/**
 * `keys init`: this home's signing key, then the data key (`initDataKey`). Each is made only
 * when missing, so a home that has one gets the other; a home with both is refused by the data key's step.
 */
export async function keysInitCommand(context: CliContext, initDataKey: () => Promise<number>): Promise<number> {
  const home = homeOf(context);
  const hadSigningKey = readHomeKey(home) !== null;
  if (!hadSigningKey) {
    const created = createSigningKey(home);
    const say = context.options.json ? context.terminal.note : context.terminal.out;
    say(`Created this home's signing key ${created.fingerprint}`);
    say(`  ${created.file} (private: keep it, never share it)`);
    context.terminal.note(
      'Exports are signed from now on. Share the public key: conclave keys export-public -o my-key.pub',
    );
  }
  try {
    return await initDataKey();
  } catch (error) {
    // The data key was there already: what this init had to make, the signing key, is made.
    if (hadSigningKey || !UsageError.isInstance(error)) throw error;
    context.terminal.note(error.message);
    return 0;
  }
}

const exportPublicOptionsSchema = z.object({
  output: z.string().optional(),
  oneLine: z.boolean().default(false),
  force: z.boolean().default(false),
});

export async function keysExportPublicCommand(context: CliContext, input: { options: Record<string, unknown> }) {
  const options = exportPublicOptionsSchema.parse(input.options);
  const key = readHomeKey(homeOf(context));
  if (!key?.publicKeys.signing)
    throw new UsageError(`This home has no signing key (${signingKeyFile(homeOf(context))}).`, {
      hint: 'Create one with: conclave keys init',
    });
  const text = formatPublicKeys(key.publicKeys, options.oneLine ? 'one-line' : 'pem');
  const fingerprint = fingerprintOf(key.publicKeys.signing);
  if (options.output && options.output !== STANDARD_OUTPUT) {
    const target = path.resolve(context.environment.cwd, options.output);
    writeOutputFile(target, text, { force: options.force, mode: 0o644 });
    context.terminal.note(`Wrote the public key ${fingerprint} to ${target}`);
  } else context.environment.streams.stdout.write(text);
  context.terminal.note(`Others trust it with: conclave keys trust <this file> --name <your name>`);
  return 0;
}

const trustOptionsSchema = z.object({
  name: z.string().optional(),
  list: z.boolean().default(false),
  remove: z.string().optional(),
});

export async function keysTrustCommand(
  context: CliContext,
  input: { file?: string; options: Record<string, unknown> },
) {
  const options = trustOptionsSchema.parse(input.options);
  const home = homeOf(context);
  const actions = [input.file !== undefined, options.list, options.remove !== undefined].filter(Boolean).length;
  if (actions !== 1)
    throw new UsageError('Give one of: a public key file with --name, --list, or --remove <name>.', {
      hint: 'conclave keys trust alice.pub --name alice | conclave keys trust --list | conclave keys trust --remove alice',
    });
  const terminal = context.terminal;
  if (options.list) {
    const trusted = listTrustedKeys(home);
    if (context.options.json)
      terminal.data(JSON.stringify(trusted.map(({ name, fingerprint }) => ({ name, fingerprint }))));
    else if (trusted.length === 0)
      terminal.note('No trusted keys. Trust one with: conclave keys trust <file> --name <name>');
    else for (const key of trusted) terminal.out(`${key.name}  ${key.fingerprint}`);
    return 0;
  }
  if (options.remove !== undefined) {
    const removed = distrustKey(home, options.remove);
    if (context.options.json)
      terminal.data(JSON.stringify({ removed: removed.name, fingerprint: removed.fingerprint }));
    else terminal.out(`No longer trusted: ${removed.name} (${removed.fingerprint}).`);
    return 0;
  }
  if (options.name === undefined)
    throw new UsageError('Name the key you trust: --name <name>.', {
      hint: `Imports it signed will say "signed by <name> (trusted)": conclave keys trust ${input.file} --name alice`,
    });
  const trusted = trustKey(home, path.resolve(context.environment.cwd, input.file ?? ''), options.name);
  if (context.options.json) terminal.data(JSON.stringify({ trusted: trusted.name, fingerprint: trusted.fingerprint }));
  else
    terminal.out(
      `Trusted ${trusted.fingerprint} as ${trusted.name}: imports it signed say "signed by ${trusted.name} (trusted)".`,
    );
  terminal.note('Check the fingerprint with its owner (conclave keys export-public prints it) before relying on it.');
  return 0;
}
