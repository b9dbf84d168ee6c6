// The whole command surface (docs/architecture.md#the-cli) as a commander program. Every action imports its
// command module lazily, so `conclave sessions list` loads only what listing needs and
// never Ink, React or a provider SDK.

import { builtinProviders } from '@resume/runner/providers';
import { Command, Option } from 'commander';
import type { CliContext, CliEnvironment } from '../context/cli-context.js';
import { listableModes, modeFlags, runModeHelp } from '../modes/mode-names.js';
import { CONFLICT_CHOICES, UNCERTAIN_CHOICES } from '../runs/resume-choices.js';
import { addDataKeyCommands, addSessionsEncryptCommand } from './data-key-commands.js';
import { addWorkerCommands } from './worker-commands.js';

export interface ProgramHooks {
  /** The command line as typed (a task that looks like a mistyped command is offered again corrected). */
  readonly argv: readonly string[];
  /** Runs another command line in this process (the corrected command), returning its exit code. */
  rerun(argv: readonly string[]): Promise<number>;
  /** Runs a command line in this process with another environment (the MCP server's tool calls). */
  runIn(argv: readonly string[], environment: CliEnvironment): Promise<number>;
  /** Called by the chosen action with the work to do; the caller runs it and keeps the exit code. */
  run(command: Command, work: () => Promise<number>): Promise<void>;
}

const globalOptionNames = ['home', 'store', 'provider', 'model', 'json', 'quiet', 'color', 'debug'] as const;

function addGlobalOptions(command: Command): Command {
  return command
    .option('--home <dir>', 'data home (else $CONCLAVE_HOME, else ~/.conclave)')
    .option(
      '--store <url>',
      'session store: postgres://... (else $CONCLAVE_STORE_URL, else the file store in the home)',
    )
    .addOption(
      new Option('--provider <name>', 'model provider (default: from the API key in the environment)').choices(
        builtinProviders.names(),
      ),
    )
    .option('--model <id>', 'model for every agent')
    .option('--json', 'machine-readable output on stdout')
    .option('-q, --quiet', 'no progress or notes on stderr')
    .option('--no-color', 'no colours (also NO_COLOR)')
    .option('--debug', 'show stack traces');
}

function addResumeOptions(command: Command): Command {
  command
    .option('--checkpoint-interval <n>', 'discussions and iterative runs: label a checkpoint every N rounds / chunks')
    .option('--max-cost <usd>', 'stop at a checkpoint before a model call would take the session past this cost')
    .option('--max-lineage-cost <usd>', 'the same for the cost summed over the session and its parents')
    .option('--from-checkpoint <seq|label>', 'resume or branch from this checkpoint instead of the last one')
    .option('--reset-discussion', 'keep the context but start a fresh discussion')
    .option('--models <a,b>', 'models for the agents (comma-separated)')
    .option('--force', 'resume even when the compatibility check blocks or the recovery limit is reached')
    .option('--workspace <dir>', "resume in this directory instead of the session's recorded workspace")
    .option('--use-edited-spec', 'resume with the workflow or prompt file as edited (default: the recorded one)')
    .option('--dry-run', 'print the resume plan and stop')
    .option('-y, --yes', 'accept the resume prompt');
  // The modes' start options, as each mode declares them; a resume takes some as overrides.
  for (const flag of modeFlags()) command.option(flag.flags, flag.description);
  return addResumeChoices(command);
}

/** The answers to the resume's questions, given up front: changed files and unsafe steps that never finished. */
function addResumeChoices(command: Command): Command {
  return command
    .addOption(
      new Option('--on-conflict <choice>', `files changed since the session: ${CONFLICT_CHOICES.join('|')}`).choices(
        CONFLICT_CHOICES,
      ),
    )
    .addOption(
      new Option(
        '--on-uncertain <choice>',
        `an unsafe step that never finished: ${UNCERTAIN_CHOICES.join('|')}`,
      ).choices(UNCERTAIN_CHOICES),
    );
}

/** Where a command that writes a file of a session puts it. */
function addOutputFileOptions(command: Command): Command {
  return command
    .option('-o, --output <file>', 'write here (a new file; - is stdout) instead of stdout')
    .option('--force', 'with -o: replace an existing regular file (it keeps its mode; links are never followed)');
}

/** Global options from the root and the leaf command; a flag given on the leaf wins. */
function globalOptionsOf(command: Command): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  const chain: Command[] = [];
  for (let current: Command | null = command; current; current = current.parent) chain.unshift(current);
  for (const each of chain) {
    for (const name of globalOptionNames) {
      const source = each.getOptionValueSource(name);
      const value = each.getOptionValue(name);
      if (value === undefined) continue;
      if (source === 'default' && merged[name] !== undefined) continue;
      merged[name] = value;
    }
  }
  return merged;
}

/** The program's commands with their subcommands, names and aliases alike. */
function commandNames(program: Command): Map<string, string[]> {
  const namesOf = (command: Command) => [command.name(), ...command.aliases()];
  return new Map(
    program.commands.flatMap((command) =>
      namesOf(command).map((name) => [name, command.commands.flatMap(namesOf)] as [string, string[]]),
    ),
  );
}

/** What opens an encrypted export (`sessions import`, `sessions verify`). */
function addExportKeyOptions(command: Command): Command {
  return command
    .option('--key <file>', "an encrypted export: the private key it was encrypted for (default: this home's)")
    .option('--passphrase <text>', 'an encrypted export: its passphrase (visible to other users in ps)')
    .option('--passphrase-file <file>', 'an encrypted export: its passphrase, the first line of this file');
}

type Act = (work: (context: CliContext, command: Command) => Promise<number>) => (...args: unknown[]) => Promise<void>;

/** The signing-key subcommands of `conclave keys`: export-public and trust (init makes the signing key too). */
function addSigningKeyCommands(keys: Command, act: Act): void {
  keys.addHelpText(
    'after',
    `
A home's signing key (keys/signing-key.pem in the data home, 0600, made by keys init) signs every json export, so an
import can tell "signed by this home", "signed by <name> (trusted)", "signed by an unknown key <fingerprint>" or
"unsigned", and opens exports others encrypt for it (sessions export --encrypt-for <their public key file>).
${examples([
  'conclave keys export-public -o my-key.pub          # give this to others',
  'conclave keys trust alice.pub --name alice          # their key, checked with them',
  'conclave sessions export 01jf3k -o idea.json --encrypt-for alice',
  'conclave sessions import idea.json --require-signed',
])}`,
  );
  const keysModule = () => import('../commands/keys.js');

  const exportPublic = addGlobalOptions(
    new Command('export-public')
      .description('print or write the public key others trust (keys trust) and encrypt for (--encrypt-for)')
      .option('-o, --output <file>', 'write here (a new file; - is stdout) instead of stdout')
      .option('--force', 'with -o: replace an existing regular file')
      .option('--one-line', 'the one-line form: conclave-public-key ed25519:<key> x25519:<key>'),
  );
  exportPublic.addHelpText(
    'after',
    examples(['conclave keys export-public -o my-key.pub', 'conclave keys export-public --one-line']),
  );
  exportPublic.action(
    act(async (context, command) => (await keysModule()).keysExportPublicCommand(context, { options: command.opts() })),
  );
  keys.addCommand(exportPublic);

  const trust = addGlobalOptions(
    new Command('trust')
      .description('trust a public key under a name: imports it signed say "signed by <name> (trusted)"')
      .argument('[file]', 'a public key file (conclave keys export-public writes it, PEM or one line)')
      .option('--name <name>', 'the name imports show for it')
      .option('--list', 'list the trusted keys')
      .option('--remove <name>', 'stop trusting the key of this name'),
  );
  trust.addHelpText(
    'after',
    examples([
      'conclave keys trust alice.pub --name alice',
      'conclave keys trust --list',
      'conclave keys trust --remove alice',
      'conclave sessions import idea.json --require-signed',
    ]),
  );
  trust.action(
    act(async (context, command) =>
      (await keysModule()).keysTrustCommand(context, { file: command.args[0], options: command.opts() }),
    ),
  );
  keys.addCommand(trust);
}

function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}\n`;
}

export function buildProgram(environment: CliEnvironment, hooks: ProgramHooks): Command {
  const act =
    (work: (context: CliContext, command: Command) => Promise<number>) =>
    async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      await hooks.run(command, async () => {
        // Loaded here, not at start-up: `--help` and `--version` never load zod or core.
        const [{ openCliContext }, { parseGlobalOptions }] = await Promise.all([
          import('../context/cli-context.js'),
          import('../context/global-options.js'),
        ]);
        const context = await openCliContext(environment, parseGlobalOptions(globalOptionsOf(command)));
        try {
          return await work(context, command);
        } finally {
          await context.close();
        }
      });
    };

  /** A command whose first argument names a session: the command module is loaded when it runs. */
  const actOnSession = (
    load: () => Promise<
      (context: CliContext, input: { reference: string; options: Record<string, unknown> }) => Promise<number>
    >,
  ) =>
    act(async (context, command) =>
      (await load())(context, { reference: command.args[0] ?? '', options: command.opts() }),
    );

  const program = new Command('conclave')
    .description('Durable, resumable AI agent sessions: every step checkpointed, resume without repeating work.')
    .version(environment.version, '-V, --version')
    .enablePositionalOptions()
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .argument('[task...]', 'the task for a new discussion, or the follow-up question')
    .option('-c, --continue [follow-up]', "continue this workspace's most recent session with a follow-up")
    .option(
      '-r, --resume [id|name|index|path]',
      'resume an interrupted session (one waiting for an answer asks its question first), or continue a completed one with a question',
    )
    .option('--branch-from <id>', 'start a new session from a checkpoint of another one')
    .option('--at-round <n>', 'with --branch-from: the round to branch after')
    .option('--mode <mode>', runModeHelp())
    .option('--script <file.yaml>', 'scripted provider: turns to play, in order')
    .option('--title <title>', 'the session title (default: from the task)')
    .option('--list-sessions', 'alias of: sessions list')
    .option('--show-session <id>', 'alias of: sessions show <id>')
    .option('--delete-session <id>', 'alias of: sessions delete <id>')
    .option('--cleanup-sessions', 'alias of: sessions cleanup')
    .option('--older-than <age>', 'with --cleanup-sessions: 30d, 12h, 2w')
    .option('--status <status>', 'with --list-sessions / --cleanup-sessions: filter by status')
    .option('--limit <n>', 'with --list-sessions: at most N sessions');
  addResumeOptions(program);
  addGlobalOptions(program);
  program.addHelpText(
    'after',
    examples([
      'conclave "Evaluate my idea: a CLI that makes agent sessions durable"',
      'conclave --continue "What about scale?"',
      'conclave --resume                      # pick an interrupted session (terminal)',
      'conclave --resume 01jf3k "Go deeper on pricing"',
      'conclave --branch-from 01jf3k --at-round 1 "What if we target teams?"',
      'conclave --mode iterative --project notes.txt "Fix OCR errors"',
      'conclave run workflow.yaml --var topic="AI agents"',
      'conclave sessions list --status interrupted',
      'conclave help sessions list            # the help of a command',
      'CONCLAVE_SCRIPTED_PRICE=2.5,10 conclave "Plan" --max-cost 0.01   # a cost limit, offline',
    ]),
  );
  program.action(
    act(async (context, command) => {
      const options = command.opts();
      const words = command.args as string[];
      const { runRootCommand } = await import('../commands/root.js');
      return runRootCommand(context, {
        task: words.join(' ').trim(),
        options,
        typed: { argv: hooks.argv, words, commands: commandNames(command), rerun: hooks.rerun },
      });
    }),
  );

  const run = addGlobalOptions(
    addResumeOptions(
      new Command('run')
        .description('run a workflow spec (YAML) or a prompt file (.prompt.md), or resume one')
        .argument('[file]', 'spec.yaml or task.prompt.md')
        .option(
          '--var <key=value>',
          'set a variable (repeatable)',
          (value: string, all: string[]) => [...all, value],
          [],
        )
        .option('--no-save-session', 'do not keep the session after a successful run')
        .option(
          '--resume [id]',
          'resume an interrupted workflow run (without id: pick one in a terminal, else the newest of this directory)',
        )
        .option('--script <file.yaml>', 'scripted provider: turns to play, in order')
        .option(
          '--step-timeout <duration>',
          'how long one attempt of a workflow step may take (30s, 5m) when the step sets no timeout:; before defaults.timeout',
        )
        .option(
          '--max-parallel <n>',
          "run every map step's items and parallel group's steps at most N at once (instead of the spec's; within limits.maxParallel)",
        )
        .option(
          '--worktree',
          'run in a new git worktree on the branch conclave/<session> (as worktree: true in the spec)',
        )
        .option(
          '--queue <name>',
          'put the run on this queue of the PostgreSQL store for a worker (conclave worker) instead of running it here',
        ),
    ),
  );
  // `run dlq` and `run retry` take their own options (--yes, --dry-run...), not run's.
  run.enablePositionalOptions();
  run.addHelpText(
    'after',
    examples([
      'conclave run research.yaml --var topic="AI agents"',
      'conclave run fix-tests.prompt.md --on-uncertain rerun',
      'conclave run --resume 01jf3k --yes',
      'conclave run --resume --yes              # the newest interrupted workflow of this directory',
      'conclave run research.yaml --json > result.json',
      'conclave run build.yaml --step-timeout 10m    # a step without timeout: fails (and is retried) after 10 minutes',
      'conclave run review.yaml --max-parallel 2     # at most 2 map items / group steps at once',
      'conclave run --resume 01jf3k --on-uncertain rerun --yes   # stops a command the crashed run left running, then reruns it',
      'conclave run dlq 01jf3k                  # map items that failed after their retries',
      'conclave run retry 01jf3k --items failed # run them again, then go on',
      'conclave run fix.yaml --worktree         # in a git worktree of its own, then:',
      'conclave run merge 01jf3k                # merge its branch back',
      'conclave run review.yaml --queue reviews --store postgres://db/conclave   # a worker runs it',
    ]),
  );
  run.action(
    act(async (context, command) => {
      const { runWorkflowCommand } = await import('../commands/run-workflow.js');
      return runWorkflowCommand(context, { file: command.args[0], options: command.opts() });
    }),
  );

  const dlq = addGlobalOptions(
    new Command('dlq')
      .description("a workflow run's dead-letter list: the map items that failed after their retries")
      .argument('<id>', 'id, unique prefix or list index')
      .option('--all', 'every item of every map step with its state (completed, failed, unfinished, not started)'),
  );
  dlq.addHelpText(
    'after',
    `\nA map step's item that still fails after its retries goes to the dead-letter list; the
other items go on, the reduce step sees every result, then the run ends as failed (exit 1).
The list shows each failed item's id, the step that failed, its attempts and its error
(--json: the whole error and the item itself).
${examples([
  'conclave run dlq 01jf3k',
  'conclave run dlq 01jf3k --all',
  'conclave run dlq 01jf3k --json | jq -r ".[].id"',
  'conclave run retry 01jf3k --items failed',
])}`,
  );
  dlq.action(actOnSession(async () => (await import('../commands/run-items.js')).deadLettersCommand));
  run.addCommand(dlq);

  const retry = addGlobalOptions(
    addResumeChoices(
      new Command('retry')
        .description('run failed map items of a workflow run again, then go on with the rest of the workflow')
        .argument('<id>', 'id, unique prefix or list index')
        .requiredOption('--items <failed|ids>', '`failed` for every failed item, or item ids separated by commas')
        .option('--dry-run', 'say which items would run again, change nothing')
        .option('-y, --yes', 'accept the resume prompt')
        .option('--force', 'go on even when the compatibility check blocks or the recovery limit is reached')
        .option('--workspace <dir>', "run in this directory instead of the session's recorded workspace")
        .option('--max-cost <usd>', 'stop at a checkpoint before a model call would take the session past this cost'),
    ),
  );
  retry.addHelpText(
    'after',
    `\nThe retry is journaled, then the session resumes: each retried item keeps the steps that
passed and gets a fresh set of attempts for the one that failed; completed items never run
again; once nothing fails the reduce step runs again and the workflow goes on. A plain
\`conclave run --resume\` runs unfinished items only and leaves the dead-letter list alone.
${examples([
  'conclave run retry 01jf3k --items failed',
  'conclave run retry 01jf3k --items src/a.ts,src/b.ts --yes',
  'conclave run retry 01jf3k --items failed --dry-run',
])}`,
  );
  retry.action(actOnSession(async () => (await import('../commands/run-items.js')).retryItemsCommand));
  run.addCommand(retry);

  const merge = addGlobalOptions(
    new Command('merge')
      .description("merge a worktree run's branch (conclave/<session>) into the repository it was made from")
      .argument('<id>', 'id, unique prefix or list index')
      .option('--keep', 'keep the worktree and its branch after the merge')
      .option('--force', 'merge a run that is not completed (what it did so far)'),
  );
  merge.addHelpText(
    'after',
    `\nA run started with --worktree (or worktree: true in its spec) works in a git worktree of its
own, on the branch conclave/<session>, and leaves the repository's files alone. This merges
that branch into the branch checked out in the repository: a fast-forward when the repository
did not move, else a merge commit. Files the run left uncommitted are committed on its branch
first. Conflicts are found before anything changes: the merge is refused (exit 65) with the
files that conflict, and nothing is merged. After the merge the worktree and the branch are
removed (--keep keeps them).
${examples(['conclave run merge 01jf3k', 'conclave run merge 01jf3k --keep', 'conclave run merge 01jf3k --json'])}`,
  );
  merge.action(actOnSession(async () => (await import('../commands/run-merge.js')).mergeWorktreeCommand));
  run.addCommand(merge);
  program.addCommand(run);

  const sessions = new Command('sessions').description('list, inspect, export and clean up sessions');
  const list = addGlobalOptions(
    new Command('list')
      .alias('ls')
      .description('list sessions, newest first')
      .option('--mode <mode>', `only this mode (${listableModes().join(', ')})`)
      .option('--status <status>', 'only this status (running, interrupted, completed, failed)')
      .option('--since <date>', 'only sessions updated since this date (2026-06-01, or an age like 7d)')
      .option('--workspace', 'only sessions of the current directory')
      .option('--tag <tags>', 'only sessions with these tags (comma-separated: all of them)')
      .option('--pinned', 'only pinned sessions')
      .option('--archived', 'only archived sessions (left out otherwise)')
      .option('--search <words>', 'only sessions whose title, name, tags, task or messages have these words')
      .option('--limit <n>', 'at most N sessions (default: all with --json, 50 otherwise)'),
  );
  list.addHelpText(
    'after',
    examples([
      'conclave sessions list',
      'conclave sessions list --status interrupted --since 7d',
      'conclave sessions list --tag work --pinned',
      'conclave sessions list --search "event sourcing" --since 30d',
      'conclave sessions list --json | jq ".[0].id"',
    ]),
  );
  list.action(
    act(async (context, command) => {
      const { listSessionsCommand } = await import('../commands/sessions-list.js');
      return listSessionsCommand(context, command.opts());
    }),
  );
  sessions.addCommand(list);

  const search = addGlobalOptions(
    new Command('search')
      .description('find sessions by what was said in them: hits with the round, the speaker and a snippet')
      .argument(
        '<words...>',
        'words to find (each needed, a word also finds longer ones: "idempot" finds "idempotent")',
      )
      .option('--limit <n>', 'at most N hits, best first (default: 20, or 100 with --json)'),
  );
  search.addHelpText(
    'after',
    `\nTitles, names, tags, tasks and the messages of users and agents are searched through an
index kept beside the listing (<home>/index/content.sqlite): no journal is scanned, and only
what changed since the last search is read. Case and accents do not matter; words in double
quotes must come together, as written. The index holds words, never whole messages; removing
it is safe (the next search builds it again from the journals).
${examples([
  'conclave sessions search idempotent replay',
  'conclave sessions search \'"event sourcing"\' --limit 5',
  'conclave sessions search kubernetes --json | jq ".[0].snippet"',
  'conclave sessions list --search kubernetes   # the listing, filtered',
])}`,
  );
  search.action(
    act(async (context, command) =>
      (await import('../commands/sessions-search.js')).searchSessionsCommand(context, {
        words: command.args,
        options: command.opts(),
      }),
    ),
  );
  sessions.addCommand(search);

  const show = addGlobalOptions(
    new Command('show')
      .description('a session: status, lineage, checkpoints, usage and cost, transcript')
      .argument('<id>', 'id, name, unique prefix (6+ characters), list index or exported file')
      .option('--transcript', 'print the whole transcript (tool calls unfolded)'),
  );
  show.addHelpText('after', examples(['conclave sessions show 01jf3k', 'conclave sessions show 1 --json']));
  show.action(actOnSession(async () => (await import('../commands/sessions-show.js')).showSessionCommand));
  sessions.addCommand(show);

  const remove = addGlobalOptions(
    new Command('delete')
      .alias('rm')
      .description(
        'move a session to the trash (sessions restore brings it back), or delete it for good with --now; sessions continued or branched from it keep their history and lose their parent link',
      )
      .argument('<id>', 'id, name, unique prefix, list index or exported file')
      .option(
        '-y, --yes',
        'do not ask first (a terminal asks [y/N]); a session another process is running is never deleted',
      )
      .option('--force', 'the same as --yes')
      .option('--now', 'delete it for good at once, skipping the trash'),
  );
  remove.addHelpText(
    'after',
    examples([
      'conclave sessions delete 01jf3k',
      'conclave sessions restore 01jf3k          # changed your mind',
      'conclave sessions delete 3 --now --yes    # for good, without asking',
    ]),
  );
  remove.action(actOnSession(async () => (await import('../commands/sessions-delete.js')).deleteSessionCommand));
  sessions.addCommand(remove);

  const trashModule = () => import('../commands/sessions-trash.js');
  const trash = addGlobalOptions(
    new Command('trash')
      .description('list the sessions in the trash (kept trash.keepDays, 7 by default), or delete them for good')
      .option('--empty', 'delete everything in the trash for good')
      .option('--older-than <age>', 'delete for good what has been in the trash this long: 3d, 12h, 2w'),
  );
  trash.addHelpText(
    'after',
    examples(['conclave sessions trash', 'conclave sessions trash --older-than 3d', 'conclave sessions trash --empty']),
  );
  trash.action(act(async (context, command) => (await trashModule()).trashCommand(context, command.opts())));
  sessions.addCommand(trash);

  const restore = addGlobalOptions(
    new Command('restore')
      .description('bring a session back from the trash, with its lineage')
      .argument('<id>', 'id, name or unique prefix (conclave sessions trash lists them)'),
  );
  restore.addHelpText('after', examples(['conclave sessions trash', 'conclave sessions restore 01jf3k']));
  restore.action(actOnSession(async () => (await trashModule()).restoreCommand));
  sessions.addCommand(restore);

  const du = addGlobalOptions(
    new Command('du')
      .description(
        'what takes the space in the data home: the biggest sessions (journal, snapshots, file snapshots, blobs) and the total, the trash and the index included',
      )
      .option('--top <n>', 'show the N biggest sessions (default: 10, all with --json)'),
  );
  du.addHelpText(
    'after',
    `${examples(['conclave sessions du', 'conclave sessions du --top 30', 'conclave sessions du --json | jq .bytes'])}
A session's total is its folder and the blobs its journal names (file snapshots, large outputs).
A blob is stored once per content: sessions naming the same content share it, and deleting one
frees only what no other session names. Free space with conclave sessions cleanup,
conclave sessions trash --empty or conclave sessions delete <id> --now.
`,
  );
  du.action(
    act(async (context, command) =>
      (await import('../commands/sessions-du.js')).duSessionsCommand(context, command.opts()),
    ),
  );
  sessions.addCommand(du);

  const organizeModule = () => import('../commands/sessions-organize.js');
  const rename = addGlobalOptions(
    new Command('rename')
      .description('name a session (unique in this home); the name works wherever an id does')
      .argument('<id>', 'id, name, unique prefix or list index')
      .argument('[name]', 'the new name, in quotes if it has spaces')
      .option('--clear', 'remove the name'),
  );
  rename.addHelpText(
    'after',
    examples([
      'conclave sessions rename 01jf3k "release notes"',
      'conclave --resume "release notes" "And the changelog?"',
      'conclave sessions rename "release notes" --clear',
    ]),
  );
  rename.action(
    act(async (context, command) =>
      (await organizeModule()).renameSessionCommand(context, {
        reference: command.args[0] ?? '',
        name: command.args[1],
        options: command.opts(),
      }),
    ),
  );
  sessions.addCommand(rename);

  const tag = addGlobalOptions(
    new Command('tag')
      .description('add (+tag) and remove (-tag) tags; sessions list --tag and the picker filter by them')
      .argument('<id>', 'id, name, unique prefix or list index')
      .argument('<changes...>', '+tag to add, -tag to remove')
      .allowUnknownOption(),
  );
  tag.addHelpText(
    'after',
    examples([
      'conclave sessions tag 01jf3k +work +q3',
      'conclave sessions tag "release notes" -draft',
      'conclave sessions list --tag work',
    ]),
  );
  tag.action(
    act(async (context, command) =>
      (await organizeModule()).tagSessionCommand(context, {
        reference: command.args[0] ?? '',
        words: command.args.slice(1),
        options: command.opts(),
      }),
    ),
  );
  sessions.addCommand(tag);

  const marks = [
    ['pin', { pinned: true }, 'pin a session: the picker shows it first, retention never deletes it', '--pinned'],
    ['unpin', { pinned: false }, 'unpin a session', '--pinned'],
    [
      'archive',
      { archived: true },
      'archive a session: listings and the picker leave it out (a finished one is also compressed)',
      '--archived',
    ],
    ['unarchive', { archived: false }, 'bring an archived session back into listings', '--archived'],
  ] as const;
  for (const [name, mark, description, listFlag] of marks) {
    const command = addGlobalOptions(
      new Command(name).description(description).argument('<id>', 'id, name, unique prefix or list index'),
    );
    command.addHelpText('after', examples([`conclave sessions ${name} 01jf3k`, `conclave sessions list ${listFlag}`]));
    command.action(
      act(async (context, parsed) =>
        (await organizeModule()).markSessionCommand(context, {
          reference: parsed.args[0] ?? '',
          mark,
          options: parsed.opts(),
        }),
      ),
    );
    sessions.addCommand(command);
  }

  const cleanup = addGlobalOptions(
    new Command('cleanup')
      .description('delete old sessions (and archive per config); never running or interrupted ones unless asked')
      .option('--older-than <age>', 'sessions not updated for this long: 30d, 12h, 2w (default: the config policy)')
      .option('--status <statuses>', 'which statuses may go, comma-separated (default: completed,failed)')
      .option('--dry-run', 'say what would be deleted, archived or pruned, change nothing')
      .option(
        '--langgraph-keep <n>',
        'prune every LangGraph thread to its newest N checkpoints per namespace (and what they need); alone or with the above',
      ),
  );
  cleanup.addHelpText(
    'after',
    examples([
      'conclave sessions cleanup --older-than 30d --dry-run',
      'conclave sessions cleanup --older-than 7d --status failed,interrupted',
      'conclave sessions cleanup              # apply retention from the config',
      'conclave sessions cleanup --langgraph-keep 20 --dry-run   # which threads, how many checkpoints, bytes',
    ]),
  );
  cleanup.action(
    act(async (context, command) => {
      const { cleanupSessionsCommand } = await import('../commands/sessions-cleanup.js');
      return cleanupSessionsCommand(context, command.opts());
    }),
  );
  sessions.addCommand(cleanup);

  const exportCommand = addGlobalOptions(
    addOutputFileOptions(
      new Command('export')
        .description('write a session to a file (json round-trips through import; md is for reading)')
        .argument('<id>', 'id, unique prefix or list index')
        .addOption(new Option('--format <format>', 'json or md').choices(['json', 'md']).default('json')),
    )
      .option(
        '--encrypt-for <key>',
        "json: encrypt for a public key file (conclave keys export-public) or a trusted key's name; only its private key opens it",
      )
      .option('--passphrase <text>', 'json: encrypt with a passphrase (8+ characters; visible to other users in ps)')
      .option('--passphrase-file <file>', 'json: encrypt with the passphrase on the first line of this file')
      .option(
        '--plain',
        'a session encrypted at rest: write the export in the clear (default: encrypted for this home)',
      ),
  );
  exportCommand.addHelpText(
    'after',
    `${examples([
      'conclave sessions export 01jf3k -o idea.json',
      'conclave sessions export 01jf3k -o idea.json --force   # replace idea.json',
      'conclave sessions export 1 --format md > idea.md',
      'conclave sessions export 01jf3k -o idea.json --encrypt-for alice.pub',
      'conclave sessions export 01jf3k -o idea.json --passphrase-file secret.txt',
    ])}
A json export is signed with this home's key (conclave keys init makes it); without one it is written unsigned, and says so.
A session encrypted at rest is exported encrypted for this home's key, so only this home imports it; for another home
give --encrypt-for <its public key> or --passphrase-file, and --plain for an export in the clear.
`,
  );
  exportCommand.action(actOnSession(async () => (await import('../commands/sessions-export.js')).exportSessionCommand));
  sessions.addCommand(exportCommand);

  const traceCommand = addGlobalOptions(
    addOutputFileOptions(
      new Command('trace')
        .description("write a session's whole history as an OpenTelemetry trace (OTLP JSON), from its journal")
        .argument('<id>', 'id, unique prefix or list index'),
    ),
  );
  traceCommand.addHelpText(
    'after',
    [
      examples([
        'conclave sessions trace 01jf3k -o trace.json',
        'conclave sessions trace 1 > trace.json          # the most recent session',
      ]),
      '',
      'Every run of the session (the first and each resume) is a span of one trace, with its',
      'rounds or workflow steps, map items, model calls (GenAI attributes) and tool calls under it.',
      'The ids come from the session id and the journal, so the file is the same every time and',
      'matches what a run sent live (OTEL_EXPORTER_OTLP_ENDPOINT; see docs/tracing.md). Prompt and',
      'completion text only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.',
      '',
    ].join('\n'),
  );
  traceCommand.action(actOnSession(async () => (await import('../commands/sessions-trace.js')).traceSessionCommand));
  sessions.addCommand(traceCommand);

  const importCommand = addGlobalOptions(
    addExportKeyOptions(
      new Command('import')
        .description('import a session exported as json, and say who signed it')
        .argument('<file>', 'the exported file')
        .option(
          '--require-signed',
          'refuse a bundle not signed by this home or a trusted key (also: imports.requireSigned in the config)',
        ),
    ),
  );
  importCommand.addHelpText(
    'after',
    `${examples([
      'conclave sessions import idea.json',
      'conclave sessions import idea.json --require-signed',
      'conclave sessions import idea.json --key ~/.conclave/keys/signing-key.pem',
      'conclave sessions import idea.json --passphrase-file secret.txt',
    ])}
The import says "signed by this home", "signed by <name> (trusted)" (conclave keys trust), "signed by an unknown key
<fingerprint>" or "unsigned". A signed bundle changed after it was signed is refused (exit 65).
`,
  );
  importCommand.action(
    act(async (context, command) => {
      const { importSessionCommand } = await import('../commands/sessions-import.js');
      return importSessionCommand(context, { file: command.args[0] ?? '', options: command.opts() });
    }),
  );
  sessions.addCommand(importCommand);

  const repair = addGlobalOptions(
    new Command('repair')
      .description(
        'rebuild a damaged session: its header, the longest journal that can be proven, its snapshot (the old journal is kept aside)',
      )
      .argument('<id>', 'id, unique prefix or list index')
      .option('--dry-run', 'say exactly what would be kept and dropped, change nothing'),
  );
  repair.addHelpText(
    'after',
    examples([
      'conclave sessions repair 01jf3k --dry-run',
      'conclave sessions repair 01jf3k',
      'conclave sessions verify',
    ]),
  );
  repair.action(actOnSession(async () => (await import('../commands/sessions-repair.js')).repairSessionCommand));
  sessions.addCommand(repair);

  const verify = addGlobalOptions(
    addExportKeyOptions(
      new Command('verify')
        .description(
          'read every file of a session (or of all sessions) in full and report any damage; exit 65 if some. An export file: its checksums and who signed it',
        )
        .argument('[id|file]', 'id, unique prefix, list index or export file (default: every session)'),
    ),
  );
  verify.addHelpText(
    'after',
    examples([
      'conclave sessions verify',
      'conclave sessions verify 01jf3k --json',
      'conclave sessions verify ./idea.json       # an export: intact? signed by whom?',
    ]),
  );
  verify.action(
    act(async (context, command) => {
      const { verifySessionsCommand } = await import('../commands/sessions-verify.js');
      return verifySessionsCommand(
        context,
        command.args[0] === undefined ? {} : { reference: command.args[0], options: command.opts() },
      );
    }),
  );
  sessions.addCommand(verify);
  addSessionsEncryptCommand(sessions, act, addGlobalOptions, examples);
  program.addCommand(sessions);

  const answer = addGlobalOptions(
    new Command('answer')
      .description('answer the question a waiting session asks (then resume it)')
      .argument('<id>', 'id, unique prefix or list index')
      .argument('[answer]', 'the answer (without it: print the question)')
      .option('--by <name>', 'who answers, journaled with the answer (default: user@host)'),
  );
  answer.addHelpText(
    'after',
    examples([
      'conclave sessions list --status waiting',
      'conclave answer 01jf3k                 # print the question',
      'conclave answer 01jf3k "Yes, deploy it"',
      'conclave --resume 01jf3k                # in a terminal: asks the question first if still unanswered',
      'conclave --resume                       # the picker: a on a waiting session answers it there',
    ]),
  );
  answer.action(
    act(async (context, command) => {
      const { answerCommand } = await import('../commands/answer.js');
      return answerCommand(context, {
        reference: command.args[0] ?? '',
        answer: command.args[1],
        by: command.opts().by as string | undefined,
      });
    }),
  );
  program.addCommand(answer);

  const keys = new Command('keys').description(
    'the keys that encrypt sessions at rest and sign exports, and the public keys this home trusts (docs/encryption.md)',
  );
  addDataKeyCommands(keys, act, addGlobalOptions, examples);
  addSigningKeyCommands(keys, act);
  program.addCommand(keys);

  const checkpoints = new Command('checkpoints').description("a session's checkpoints");
  const checkpointsList = addGlobalOptions(
    new Command('list')
      .alias('ls')
      .description(
        "the checkpoints of a session (resume or branch from any of them); of a LangGraph thread, its graph's",
      )
      .argument('<id>', 'id, unique prefix or list index')
      .option(
        '--limit <n>',
        'the newest N checkpoints, oldest first (default: all with --json, the newest 50 otherwise)',
      ),
  );
  checkpointsList.addHelpText(
    'after',
    examples([
      'conclave checkpoints list 01jf3k',
      'conclave checkpoints list 01jf3k --limit 5     # the newest five',
      'conclave --branch-from 01jf3k --from-checkpoint 12 "What if..."',
    ]),
  );
  checkpointsList.action(
    act(async (context, command) => {
      const { listCheckpointsCommand } = await import('../commands/checkpoints-list.js');
      return listCheckpointsCommand(context, { reference: command.args[0] ?? '', options: command.opts() });
    }),
  );
  checkpoints.addCommand(checkpointsList);
  program.addCommand(checkpoints);

  const checkpointRequest = addGlobalOptions(
    new Command('checkpoint')
      .description('ask a running session (another terminal or machine) to write a labelled checkpoint')
      .argument('<id>', 'id, unique prefix or list index of a running session')
      .argument('[label]', 'the checkpoint label (default: "requested at <time>")')
      .option('--wait [seconds]', 'wait until the session has written it (default 60 s)'),
  );
  checkpointRequest.addHelpText(
    'after',
    examples([
      'conclave checkpoint 01jf3k "before the refactor"',
      'conclave checkpoint 01jf3k --wait 30',
      'conclave --branch-from 01jf3k --from-checkpoint "before the refactor" "Try another way"',
    ]),
  );
  checkpointRequest.action(
    act(async (context, command) => {
      const { checkpointRequestCommand } = await import('../commands/checkpoint-request.js');
      return checkpointRequestCommand(context, {
        reference: command.args[0] ?? '',
        label: command.args[1],
        options: command.opts(),
      });
    }),
  );
  program.addCommand(checkpointRequest);

  const files = addGlobalOptions(
    new Command('files')
      .description('file versions a session keeps for you (what a conflict restore replaced), and getting one back')
      .argument('<id>', 'id, unique prefix or list index')
      .option('--restore <#|path>', 'write a saved version back (a number from the listing, or a path: its newest)')
      .option('--to <file>', "where --restore writes (default: its path in the session's workspace); never overwrites"),
  );
  files.addHelpText(
    'after',
    examples([
      'conclave files 01jf3k',
      'conclave files 01jf3k --restore notes.md',
      'conclave files 01jf3k --restore 2 --to notes.mine.md',
    ]),
  );
  files.action(
    act(async (context, command) => {
      const { filesCommand } = await import('../commands/files.js');
      const options = command.opts<{ restore?: string; to?: string }>();
      return filesCommand(context, {
        reference: command.args[0] ?? '',
        ...(options.restore !== undefined ? { restore: options.restore } : {}),
        ...(options.to !== undefined ? { to: options.to } : {}),
      });
    }),
  );
  program.addCommand(files);

  const config = addGlobalOptions(
    new Command('config').description('the effective configuration and where each value came from'),
  );
  config.addHelpText('after', examples(['conclave config', 'conclave config --json']));
  config.action(
    act(async (context) => {
      const { showConfigCommand } = await import('../commands/config.js');
      return showConfigCommand(context);
    }),
  );
  program.addCommand(config);

  const database = new Command('db').description('PostgreSQL store administration');
  const migrate = addGlobalOptions(
    new Command('migrate').description('create or upgrade the PostgreSQL schema (--store or $CONCLAVE_STORE_URL)'),
  );
  migrate.addHelpText('after', examples(['conclave db migrate --store postgres://user@host/conclave']));
  migrate.action(
    act(async (context) => {
      const { migrateDatabaseCommand } = await import('../commands/db-migrate.js');
      return migrateDatabaseCommand(context);
    }),
  );
  database.addCommand(migrate);
  program.addCommand(database);

  const usage = addGlobalOptions(
    new Command('usage')
      .description('tokens and cost of every session, by day, week or month, model, provider, workspace, tag or mode')
      .option('--since <date>', 'only calls since this date (2026-06-01, or an age like 30d); default: all')
      .option(
        '--by <groups>',
        'group by these, comma-separated: day, week, month, model, provider, workspace, tag, mode',
        'day',
      )
      .option('--csv', 'write CSV (a header line, then one line per row) for a spreadsheet'),
  );
  usage.addHelpText(
    'after',
    `\nCounted from the model calls the journals recorded (the trash included), through the usage
table kept beside the listing (<home>/index/content.sqlite), which reads only what changed since
the last report. A branch's copy of its parent's calls is counted once; once the parent is
deleted for good, its calls up to the branch point are still counted from the copy, and the
report says what it no longer sees. Days, weeks (ISO) and months are your local calendar's.
${examples([
  'conclave usage --since 30d',
  'conclave usage --by model,day --since 7d',
  'conclave usage --by tag,month --csv > usage.csv',
  'conclave usage --by provider --json | jq .total.costUsd',
])}`,
  );
  usage.action(
    act(async (context, command) => (await import('../commands/usage.js')).usageCommand(context, command.opts())),
  );
  program.addCommand(usage);

  const mcp = addGlobalOptions(
    new Command('mcp')
      .description('serve the sessions to another agent or an IDE as an MCP server over stdio')
      .option('--allow-runs', 'also offer answer and continue_session (without it the server only reads)'),
  );
  mcp.addHelpText(
    'after',
    [
      examples([
        'claude mcp add conclave -- conclave mcp                 # Claude Code, read-only',
        'claude mcp add conclave -- conclave mcp --allow-runs    # may answer and continue sessions',
      ]),
      '',
      'Tools: list_sessions, show_session, resume_plan; with --allow-runs also answer and',
      'continue_session. Each does what the matching command does and says what it says',
      "(an error is a tool error with the CLI's message). --home and --store choose the sessions",
      'as for every command. Configuration for Claude Desktop, Cursor and VS Code: docs/mcp.md.',
      '',
    ].join('\n'),
  );
  mcp.action(
    act(async (_context, command) => {
      const { serveMcp } = await import('../mcp-server/serve-mcp.js');
      const options = command.opts() as Record<string, unknown>;
      const globalArgs = ['home', 'store', 'provider', 'model'].flatMap((name) =>
        typeof options[name] === 'string' ? [`--${name}`, options[name] as string] : [],
      );
      return serveMcp(environment, { allowRuns: options.allowRuns === true, globalArgs, runCli: hooks.runIn });
    }),
  );
  program.addCommand(mcp);

  const tui = addGlobalOptions(new Command('tui').description('the full-screen session browser'));
  tui.addHelpText('after', examples(['conclave tui']));
  tui.action(
    act(async (context) => {
      const { openBrowserCommand } = await import('../commands/tui.js');
      return openBrowserCommand(context);
    }),
  );
  program.addCommand(tui);
  addWorkerCommands(program, act, { addGlobalOptions, examples });

  return program;
}
