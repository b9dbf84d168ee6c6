// `conclave run dlq <id>` (the failed items of a workflow's map steps, or every item with
// --all) and `conclave run retry <id> --items failed|a,b` (run them again, then go on).
import { UsageError } from '@resume/core/spec';
import { chooseItems, type ItemSelection, type MapStepStatus, readMapItems } from '@resume/runner';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { truncate } from '../output/format.js';
import { parseRunFlags } from '../runs/run-flags.js';
import { runWithHarness } from '../runs/run-harness.js';
import { sessionSetup } from '../runs/session-flows.js';
import { resolveSession } from '../sessions/resolve-session.js';

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '') ?? '';
}

function countsOf(map: MapStepStatus): string {
  const { completed, failed, started, pending } = map.counts;
  const parts = [`${completed} completed`, `${failed} failed`];
  if (started > 0) parts.push(`${started} unfinished`);
  if (pending > 0) parts.push(`${pending} not started`);
  return `${map.items.length} items: ${parts.join(', ')}`;
}

export async function deadLettersCommand(
  context: CliContext,
  input: { reference: string; options: { all?: boolean } },
): Promise<number> {
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  const { maps } = await readMapItems(engine, id);
  const all = input.options.all === true;
  const terminal = context.terminal;
  if (context.options.json) {
    const listed = all
      ? maps.map((map) => ({
          step: map.stepId,
          counts: map.counts,
          items: map.items.map((item) => ({
            id: item.id,
            index: item.index,
            state: item.state,
            error: item.deadLetter?.error ?? null,
          })),
        }))
      : maps.flatMap((map) =>
          map.items.flatMap((item) =>
            item.deadLetter && item.state === 'failed'
              ? [
                  {
                    step: map.stepId,
                    id: item.id,
                    index: item.index,
                    item: item.deadLetter.item,
                    failedStep: item.deadLetter.step,
                    error: item.deadLetter.error,
                    attempts: item.deadLetter.attempts,
                    retries: item.deadLetter.generation - 1,
                  },
                ]
              : [],
          ),
        );
    terminal.data(JSON.stringify(listed, null, 2));
    return 0;
  }
  if (maps.length === 0) {
    terminal.out(`Session ${id} has no map steps that ran.`);
    return 0;
  }
  let failed = 0;
  for (const map of maps) {
    terminal.out(`Map step ${terminal.bold(map.stepId)}: ${countsOf(map)}`);
    const shown = all ? map.items : map.items.filter((item) => item.state === 'failed');
    for (const item of shown) {
      const letter = item.state === 'failed' ? item.deadLetter : null;
      const detail = letter
        ? `${letter.step}, ${letter.attempts} attempt${letter.attempts === 1 ? '' : 's'}: ${truncate(firstLine(letter.error), 100)}`
        : '';
      const state = item.state === 'failed' ? terminal.red('failed') : item.state;
      terminal.out(`  ${String(item.index).padStart(4)}  ${item.id}  ${state}${detail ? `  ${detail}` : ''}`);
    }
    failed += map.counts.failed;
  }
  if (failed > 0) {
    terminal.note(
      terminal.dim(
        `Retry them with: conclave run retry ${id} --items failed   (or --items <id>,<id>; see the whole error with --json)`,
      ),
    );
  } else if (!all)
    terminal.note(terminal.dim(`No failed items. Every item with its state: conclave run dlq ${id} --all`));
  return 0;
}

const retryOptionsSchema = z.object({
  items: z.string({ error: '--items is required: failed, or item ids separated by commas' }).min(1),
});

export async function retryItemsCommand(
  context: CliContext,
  input: { reference: string; options: Record<string, unknown> },
): Promise<number> {
  const parsed = retryOptionsSchema.safeParse(input.options);
  if (!parsed.success)
    throw new UsageError(parsed.error.issues[0]?.message ?? 'Invalid --items.', {
      hint: 'conclave run retry <id> --items failed   or   conclave run retry <id> --items src/a.ts,src/b.ts',
    });
  const { items: _items, ...rest } = input.options;
  const flags = parseRunFlags(rest);
  const selection: ItemSelection =
    parsed.data.items === 'failed'
      ? 'failed'
      : parsed.data.items
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);
  const id = await resolveSession(context, input.reference);
  if (flags.dryRun) {
    const { maps } = await readMapItems(await context.engine(), id);
    const chosen = chooseItems(id, maps, selection);
    if (context.options.json) {
      context.terminal.data(JSON.stringify(Object.fromEntries(chosen), null, 2));
    } else {
      for (const [step, ids] of chosen) context.terminal.out(`Map step ${step}: would retry ${ids.join(', ')}`);
    }
    context.terminal.note('Dry run: nothing was run or changed.');
    return 0;
  }
  const { setup } = await sessionSetup(context, flags, id);
  return runWithHarness(context, setup, (runner) =>
    runner.retryItems(id, selection, {
      ...(flags.force ? { force: true } : {}),
      ...(flags.workspace !== undefined ? { workspaceDir: flags.workspace } : {}),
    }),
  );
}
