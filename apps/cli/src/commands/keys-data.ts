// `conclave keys init | rotate | list`: the data keys that encrypt sessions at rest
// (docs/encryption.md), kept 0600 in `<home>/keys/data/` (keys/data-keys.ts).
import path from 'node:path';
import { UsageError } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';
import {
  addHomeKey,
  configuredKeySource,
  dataKeyDirectory,
  homeDataKeys,
  KEY_ENV,
  retireHomeKey,
  suppliedKey,
} from '../keys/data-keys.js';
import { encryptingStore } from './sessions-encrypt.js';

const LOST_KEY_WARNING =
  'Keep a copy of it somewhere safe (a password manager, a secrets store): without it, the sessions it encrypts cannot be read by anyone.';

export async function keysInitCommand(context: CliContext): Promise<number> {
  const home = context.config().config.home;
  const existing = homeDataKeys(home);
  if (existing.keys.length > 0) {
    throw new UsageError(
      `The data home ${home} has a data key already (${existing.current ?? existing.keys.at(-1)?.id}, in ${dataKeyDirectory(home)}).`,
      { hint: 'Make a new key current with: conclave keys rotate   (the old one stays for reading)' },
    );
  }
  const key = addHomeKey(home);
  const file = path.join(dataKeyDirectory(home), `${key.id}.key`);
  if (context.options.json) {
    context.terminal.data(JSON.stringify({ id: key.id, file, current: true }));
    return 0;
  }
  const terminal = context.terminal;
  terminal.out(`Created data key ${key.id}: ${file} (readable by you only).`);
  terminal.out(
    context.config().config.encryption === 'on'
      ? 'Encryption is on: new sessions are encrypted with it.'
      : `Turn encryption on with "encryption: on" in ${path.join(home, 'config.yaml')}; new sessions are then encrypted with it.`,
  );
  terminal.out(terminal.dim(LOST_KEY_WARNING));
  return 0;
}

export async function keysRotateCommand(context: CliContext): Promise<number> {
  const home = context.config().config.home;
  const previous = homeDataKeys(home).current;
  const key = addHomeKey(home);
  if (context.options.json) {
    context.terminal.data(JSON.stringify({ id: key.id, previous, current: true }));
    return 0;
  }
  const terminal = context.terminal;
  terminal.out(`Data key ${key.id} is now current: what is written from now on is encrypted with it.`);
  if (previous) {
    terminal.out(`Key ${previous} stays, to read what it encrypted.`);
  }
  if (suppliedKey(context.environment.env, context.environment.cwd, configuredKeySource(context.config()))) {
    terminal.warn(
      `A key supplied from outside the home (such as $${KEY_ENV}, or encryption.keyFile in the config) is current while it is set; unset it to use ${key.id}.`,
    );
  }
  terminal.out(terminal.dim(LOST_KEY_WARNING));
  return 0;
}

export async function keysListCommand(context: CliContext): Promise<number> {
  const { config } = context.config();
  const home = homeDataKeys(config.home);
  const supplied = suppliedKey(context.environment.env, context.environment.cwd, configuredKeySource(context.config()));
  const current = config.encryption === 'on' ? (supplied?.id ?? home.current) : null;
  const rows = [...home.keys, ...(supplied && !home.keys.some((key) => key.id === supplied.id) ? [supplied] : [])].map(
    (key) => ({ id: key.id, current: key.id === current, source: key.source, createdAt: key.createdAt }),
  );
  if (context.options.json) {
    context.terminal.data(JSON.stringify({ encryption: config.encryption, keys: rows }));
    return 0;
  }
  const terminal = context.terminal;
  terminal.out(
    `Encryption: ${config.encryption}${config.encryption === 'on' ? '' : ' (new sessions are written in the clear)'}`,
  );
  if (rows.length === 0) {
    terminal.out(terminal.dim('No data keys. Create one with: conclave keys init'));
    return 0;
  }
  for (const row of rows) {
    const mark = row.current ? 'current' : 'reading';
    terminal.out(`${row.id}  ${mark.padEnd(7)}  ${row.createdAt ?? '-'}  ${terminal.dim(row.source)}`);
  }
  return 0;
}

export async function keysRetireCommand(context: CliContext, input: { reference: string }): Promise<number> {
  const home = context.config().config.home;
  const keys = homeDataKeys(home);
  const id = input.reference.trim();
  if (!keys.keys.some((key) => key.id === id)) {
    throw new UsageError(`The data home ${home} has no data key ${id}.`, {
      hint: 'The keys it holds: conclave keys list',
    });
  }
  if (keys.current === id) {
    throw new UsageError(`Key ${id} is the current key: what is written now is encrypted with it.`, {
      hint: 'Make a new key current first: conclave keys rotate',
    });
  }
  const store = await encryptingStore(context);
  const needing: string[] = [];
  for (const summary of await store.list()) {
    if ((await store.keysOf(summary.id)).includes(id)) needing.push(summary.id);
  }
  if (needing.length > 0) {
    const shown = needing.slice(0, 10).join(', ');
    throw new UsageError(
      `Key ${id} is still needed by ${needing.length} session${needing.length === 1 ? '' : 's'}: ${shown}${needing.length > 10 ? ', …' : ''}.`,
      { hint: 'Encrypt them with the current key first: conclave sessions encrypt --all --rekey' },
    );
  }
  retireHomeKey(home, id);
  if (context.options.json) {
    context.terminal.data(JSON.stringify({ retired: id }));
    return 0;
  }
  context.terminal.out(`Retired data key ${id}: its file is removed; no session needed it.`);
  return 0;
}
