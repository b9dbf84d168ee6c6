// The data-key subcommands of `conclave keys` (docs/encryption.md): registered on the group by
// build-program.ts, each importing its module only when it runs.
import { Command } from 'commander';
import type { CliContext } from '../context/cli-context.js';

type Act = (work: (context: CliContext, command: Command) => Promise<number>) => (...args: unknown[]) => Promise<void>;

export function addDataKeyCommands(
  keys: Command,
  act: Act,
  addGlobalOptions: (command: Command) => Command,
  examples: (lines: string[]) => string,
): void {
  const module = () => import('../commands/keys-data.js');
  const init = addGlobalOptions(
    new Command('init').description(
      "create the data key that encrypts sessions at rest (0600, in the home's keys/data/)",
    ),
  );
  init.addHelpText(
    'after',
    examples(['conclave keys init', 'echo "encryption: on" >> ~/.conclave/config.yaml', 'conclave keys list']),
  );
  init.action(act(async (context) => (await module()).keysInitCommand(context)));
  keys.addCommand(init);

  const rotate = addGlobalOptions(
    new Command('rotate').description('make a new data key current; the old ones stay to read what they encrypted'),
  );
  rotate.addHelpText('after', examples(['conclave keys rotate', 'conclave keys list']));
  rotate.action(act(async (context) => (await module()).keysRotateCommand(context)));
  keys.addCommand(rotate);

  const list = addGlobalOptions(
    new Command('list').description('the data keys this home holds or is given, and which one is current'),
  );
  list.addHelpText(
    'after',
    examples(['conclave keys list', 'CONCLAVE_ENCRYPTION_KEY_COMMAND="pass show conclave" conclave keys list --json']),
  );
  list.action(act(async (context) => (await module()).keysListCommand(context)));
  keys.addCommand(list);

  const retire = addGlobalOptions(
    new Command('retire')
      .description('remove an old data key; refused while any session still needs it (and says which)')
      .argument('<id>', 'the key id (conclave keys list)'),
  );
  retire.addHelpText(
    'after',
    examples(['conclave keys rotate', 'conclave sessions encrypt --all --rekey', 'conclave keys retire 3f2a9c0d11e4']),
  );
  retire.action(
    act(async (context, command) => (await module()).keysRetireCommand(context, { reference: command.args[0] ?? '' })),
  );
  keys.addCommand(retire);
}

/** `conclave sessions encrypt`, registered on the `sessions` group. */
export function addSessionsEncryptCommand(
  sessions: Command,
  act: Act,
  addGlobalOptions: (command: Command) => Command,
  examples: (lines: string[]) => string,
): void {
  const encrypt = addGlobalOptions(
    new Command('encrypt')
      .description('encrypt sessions written in the clear with the current data key (crash-safe)')
      .argument('[id]', 'id, unique prefix or list index')
      .option('--all', 'every session')
      .option('--rekey', 'also sessions encrypted with an older key (before retiring it)'),
  );
  encrypt.addHelpText(
    'after',
    examples([
      'conclave sessions encrypt 01jf3k',
      'conclave sessions encrypt --all',
      'conclave sessions encrypt --all --rekey',
    ]),
  );
  encrypt.action(
    act(async (context, command) =>
      (await import('../commands/sessions-encrypt.js')).encryptSessionsCommand(context, {
        reference: command.args[0] ?? '',
        options: command.opts(),
      }),
    ),
  );
  sessions.addCommand(encrypt);
}
