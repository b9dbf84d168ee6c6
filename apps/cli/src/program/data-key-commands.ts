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
}
