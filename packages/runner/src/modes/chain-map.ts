// A map step: its `do:` steps run for every work item, up to `parallel` items at once, each
// item its own durable unit (its steps keyed by the item's id, in its own branch); an item
// that fails after its retries goes to the dead-letter list without stopping the others;
// `reduce:` sees every item's result. See map-journal.ts for what is written.
import { createHash } from 'node:crypto';
import { ConfigError, type JsonValue, type MessageInput, StepFailedError } from '@resume/core/spec';
import { WorkspaceAccessError } from '../files/workspace-access-error.js';
import { WorktreeRefusedError } from '../files/worktree-refused-error.js';
import {
  identifyItems,
  itemKeySegment,
  itemsSourceHash,
  type MapItem,
  resolveItemValues,
} from '../workflow/map-items.js';
import { DEFAULT_MAX_PARALLEL } from '../workflow/map-limits.js';
import { stepLabel, workflowStepIds } from '../workflow/step-ids.js';
import { itemText, renderTemplate, type StepResult, type TemplateScope } from '../workflow/template.js';
import type { WorkflowMapStep } from '../workflow/workflow-spec.js';
import { hasQueuedItems, recordItemResult, runQueuedItems } from './chain-map-queued.js';
import { type BranchRun, oneDecisionAtATime, runBounded } from './chain-parallel.js';
import type { ChainOptions, LeafRunner, StepPlace } from './chain-step.js';
import { mergeItemWorktree, oneGitAtATime, openItemWorktree } from './map-item-worktree.js';
import { MapItemsFailedError } from './map-items-failed-error.js';
import {
  type DeadLetter,
  deadLetterKey,
  deadLetterSchema,
  itemBranch,
  itemDoneLabel,
  itemPrefix,
  itemSegments,
  itemsKey,
  mapItemListSchema,
  mapRetries,
} from './map-journal.js';
import { MapNoItemsError } from './map-no-items-error.js';
import { checkpoint, keepNotice, type ModeContext } from './mode-context.js';
import { ShellCommandFailedError } from './shell-command.js';
import { StepTimedOutError } from './step-timed-out-error.js';
import { writeOutputFiles } from './workspace-output.js';

export interface MapStepInput {
  index: number;
  /** The map step's stable id. */
  id: string;
  /** Its journal key prefix (`step[review]`). */
  prefix: string;
  step: WorkflowMapStep;
  scope: TemplateScope & { steps: StepResult[] };
  runLeaf: LeafRunner;
}

type ItemOutcome =
  | { status: 'completed'; output: string | null; branch: BranchRun }
  | { status: 'failed'; deadLetter: DeadLetter; branch: BranchRun };

const itemListCodec = {
  encode: (items: MapItem[]) => items as unknown as JsonValue,
  decode: (value: JsonValue) => mapItemListSchema.parse(value) as MapItem[],
};
const deadLetterCodec = {
  encode: (letter: DeadLetter) => letter as unknown as JsonValue,
  decode: (value: JsonValue) => deadLetterSchema.parse(value),
};

/** What ends an item (to the dead-letter list) rather than the run: its command failed for good, or its data does not fit. */
function itemFailure(error: unknown): { message: string; attempts: number } | null {
  if (ConfigError.isInstance(error)) return { message: error.message, attempts: 0 };
  if (!StepFailedError.isInstance(error)) return null;
  const cause = error.cause;
  if (
    !ShellCommandFailedError.isInstance(cause) &&
    !WorkspaceAccessError.isInstance(cause) &&
    !StepTimedOutError.isInstance(cause) &&
    !WorktreeRefusedError.isInstance(cause)
  )
    return null;
  return { message: cause.message, attempts: error.attempts.length };
}

/** Environment variables are limited in size (128 KiB each on Linux): larger items are not passed. */
const MAX_ITEM_ENV_CHARS = 64 * 1024;

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

export async function runMapStep(
  context: ModeContext,
  options: ChainOptions,
  input: MapStepInput,
): Promise<StepResult> {
  const { session } = context;
  const { index, id: mapId, prefix, step, scope } = input;
  const { map } = step;
  const specKey = `steps[${index}].map`;
  const at = (key: string) => ({ file: options.file, key });
  const inserted = options.stepKeys === 'id';

  // The list is resolved once and journaled: a resume works on the same items (a glob is not
  // matched again after the items wrote files), and a changed source (an adopted edit) lists again.
  const items = await session
    .step(
      itemsKey(prefix, itemsSourceHash(map.items)),
      async () => {
        const listed = identifyItems(
          await resolveItemValues({
            source: map.items,
            workspaceDir: context.workspaceDir,
            key: `${specKey}.items`,
            render: (template) => renderTemplate(template, scope, at(`${specKey}.items`)),
          }),
        );
        // Not journaled as the list: a resume lists the items again.
        if (listed.length === 0 && map.require_items) throw new MapNoItemsError({ stepId: mapId, key: specKey });
        return listed;
      },
      { codec: itemListCodec, inserted },
    )
    .catch((error: unknown) => {
      // Said as it is, not as a failed attempt of the list's step.
      throw StepFailedError.isInstance(error) && MapNoItemsError.isInstance(error.cause) ? error.cause : error;
    });
  if (items.length === 0) keepNotice(context, `Map step ${mapId} had no items.`);
  const limit = context.maxParallel ?? DEFAULT_MAX_PARALLEL;
  // The run's --max-parallel replaces the spec's value (and is said once, by the runner, when above the limit).
  const wanted = context.parallel ?? map.parallel;
  const parallel = Math.max(1, Math.min(wanted, limit));
  if (parallel < wanted && context.parallel === undefined)
    context.emit({
      type: 'notice',
      text: `Map step ${mapId} runs ${parallel} items at once, not ${map.parallel}: limits.maxParallel is ${limit}.`,
    });

  const doIds = workflowStepIds(map.do);
  const retries = mapRetries(session.state)[mapId] ?? {};
  const recordedKeys = new Set(
    session.state.steps.filter((each) => each.status === 'completed').map((each) => each.key),
  );
  const publishedTags = new Set(
    session.state.messages.flatMap((message) => (message.tags ?? []).filter((tag) => tag.startsWith('step:'))),
  );
  const labelsBefore = new Set(session.state.checkpoints.map((marked) => marked.label));
  const mapName = step.name ?? step.id ?? String(index + 1);
  const round = index + 1;

  // Items run at once: they ask one uncertain-step question at a time, and do not stream
  // into the live view's one turn (the item counts show their progress instead).
  const onUncertain = oneDecisionAtATime(context.onUncertain);
  const { onUncertain: _decide, ...shared } = context;
  const itemContext: ModeContext = {
    ...shared,
    ...(onUncertain ? { onUncertain } : {}),
    emit: (event) => {
      if (event.type === 'turn-started' || event.type === 'delta' || event.type === 'progress') return;
      if (event.type === 'turn-completed') return;
      context.emit(event);
    },
  };

  const serialGit = oneGitAtATime();
  const segments = itemSegments(
    prefix,
    items.map((item) => item.id),
    session.state.steps.map((each) => each.key),
  );
  const runItem = async (item: MapItem): Promise<ItemOutcome> => {
    const segment = segments.get(item.id) ?? itemKeySegment(item.id);
    const base = itemPrefix(prefix, segment);
    // What the item's agents say is kept here and joins the transcript in item order.
    const branch: BranchRun = { name: itemBranch(mapId, segment), messages: [] };
    const generation = (retries[item.id] ?? 0) + 1;
    // A retried item reads its earlier dead letters back first (they come first in its branch);
    // one for this generation means the item already failed for good.
    for (let number = 1; number <= generation; number += 1) {
      const key = deadLetterKey(base, number);
      if (!recordedKeys.has(key)) continue;
      const letter = await session.step(
        key,
        () => {
          throw new Error(`dead letter ${key} is recorded`);
        },
        { codec: deadLetterCodec, branch: branch.name, inserted },
      );
      if (number === generation) return { status: 'failed', deadLetter: letter, branch };
    }
    const stepsById = new Map(scope.stepsById);
    const itemScope: TemplateScope = {
      ...scope,
      stepsById,
      item: { value: item.value, id: item.id, index: item.index },
    };
    // A very large item would not fit in a command's environment: it is left out (templates still see it).
    const text = itemText(item.value);
    const env = {
      CONCLAVE_ITEM_INDEX: String(item.index),
      CONCLAVE_ITEM_ID: item.id,
      ...(text.length <= MAX_ITEM_ENV_CHARS ? { CONCLAVE_ITEM: text } : {}),
    };
    // With map.worktree the item works in a worktree of its own until its merge is journaled.
    const mergeKey = `${base}/merge`;
    const worktree =
      map.worktree && !recordedKeys.has(mergeKey)
        ? await openItemWorktree(context.workspaceDir, { sessionId: session.id, mapId, itemId: item.id }, serialGit)
        : null;
    const runContext: ModeContext = worktree ? { ...itemContext, workspaceDir: worktree.workspace } : itemContext;
    const lastStep = map.do.length - 1;
    let current = 'items';
    let output: string | null = null;
    try {
      for (const [position, doStep] of map.do.entries()) {
        const doId = doIds[position] ?? String(position + 1);
        current = doId;
        // The item's last step marks the item done in the same append as its completion.
        const done = position === lastStep && map.artifacts.length === 0 && !map.worktree;
        const place: StepPlace = {
          index,
          number: `${round}`,
          path: `${specKey}.do[${position}]`,
          label: `step ${mapId} item ${item.id} ${doId}`,
          branch,
          env,
          stepName: `${mapName}/${doStep.name ?? doStep.id ?? String(position + 1)}`,
          ...(done ? { completionLabel: () => itemDoneLabel(mapId, item.id) } : {}),
        };
        const result = await input.runLeaf(runContext, options, place, `${base}/${doId}`, doStep, itemScope);
        const { shell: _shell, ...stepResult } = result;
        stepsById.set(doId, stepResult);
        if (!('shell' in doStep)) itemScope.lastResponse = result.response;
        output = result.response;
      }
      if (map.artifacts.length > 0) {
        current = 'artifacts';
        const files = map.artifacts.map((artifact, position) => ({
          path: renderTemplate(artifact.path, itemScope, at(`${specKey}.artifacts[${position}].path`)),
          content: renderTemplate(artifact.from, itemScope, at(`${specKey}.artifacts[${position}].from`)),
        }));
        await writeOutputFiles(runContext, `${base}/artifacts`, files, { branch: branch.name, inserted });
        if (!map.worktree) await checkpoint(context, itemDoneLabel(mapId, item.id));
      }
      if (map.worktree) {
        current = 'merge';
        const message = `Merge item ${item.id} of map step ${mapId}`;
        // Journaled before it runs (unsafe): replayed, it never merges twice.
        const merge = (): Promise<string> =>
          mergeItemWorktree(context.workspaceDir, worktree as NonNullable<typeof worktree>, message, serialGit);
        const skipped = '';
        await session.step(mergeKey, merge, {
          safety: 'unsafe',
          branch: branch.name,
          inserted,
          skipValue: skipped,
          ...(onUncertain ? { onUncertain } : {}),
        });
        await checkpoint(context, itemDoneLabel(mapId, item.id));
      } else if (map.artifacts.length === 0) {
        // Marked with the last step's completion: live views hear of it now (not when replayed).
        const label = itemDoneLabel(mapId, item.id);
        const marked = labelsBefore.has(label)
          ? undefined
          : session.state.checkpoints.findLast((checkpointed) => checkpointed.label === label);
        if (marked) context.emit({ type: 'checkpoint', seq: marked.seq, label });
      }
      return { status: 'completed', output, branch };
    } catch (error) {
      const failure = itemFailure(error);
      if (failure === null) throw error;
      const letter: DeadLetter = {
        id: item.id,
        index: item.index,
        item: item.value,
        step: current,
        error: failure.message,
        attempts: failure.attempts,
        generation,
      };
      const recorded = await session.step(deadLetterKey(base, generation), () => letter, {
        codec: deadLetterCodec,
        branch: branch.name,
        inserted,
      });
      return { status: 'failed', deadLetter: recorded, branch };
    }
  };

  // Items finish in any order; their messages join the transcript in item order, so a run's
  // transcript does not depend on timing (and a resumed run's equals an uninterrupted one's).
  // They carry the item's tag instead of their agent's: an agent's own conversation in the
  // workflow's main line does not grow with the items (nor an item's with another's).
  const outcomes: Array<ItemOutcome | undefined> = new Array(items.length);
  let published = 0;
  const publishMessage = (stepKey: string, message: MessageInput) => {
    const tag = `step:${stepKey}`;
    if (publishedTags.has(tag)) return;
    publishedTags.add(tag);
    const tags = (message.tags ?? []).filter((each) => !each.startsWith('agent:'));
    const stored = session.addMessage({ ...message, tags: [...tags, `item:${mapId}`, tag] });
    context.emit({ type: 'turn-completed', message: stored, replayed: false });
  };
  const publish = () => {
    for (let outcome = outcomes[published]; outcome !== undefined; outcome = outcomes[published]) {
      for (const { stepKey, message } of outcome.branch.messages) publishMessage(stepKey, message);
      published += 1;
    }
  };

  const progress = { total: items.length, done: 0, running: 0, failed: 0 };
  const report = () => context.emit({ type: 'map-progress', stepId: mapId, ...progress });
  report();
  let fatal: { error: unknown } | null = null;
  // A queued run's items go on the queue; so do those of a run whose items went there before.
  const queued = context.mapItems !== undefined || hasQueuedItems(session.state, prefix);
  if (queued) {
    const bases = new Map(
      items.map((item) => [item.id, itemPrefix(prefix, segments.get(item.id) ?? itemKeySegment(item.id))]),
    );
    const settled = await runQueuedItems(context, {
      index,
      mapId,
      step,
      items,
      parallel,
      bases,
      retries,
      variables: options.variables,
      file: options.file,
      inserted,
    });
    for (const [at, outcome] of settled.entries()) outcomes[at] = { ...outcome, branch: { name: '', messages: [] } };
    progress.done = settled.filter((outcome) => outcome.status === 'completed').length;
    progress.failed = settled.length - progress.done;
    report();
  }
  await runBounded(queued ? 0 : items.length, parallel, async (at) => {
    if (fatal !== null) return;
    const item = items[at] as MapItem;
    progress.running += 1;
    report();
    let outcome: ItemOutcome;
    try {
      outcome = await runItem(item);
    } catch (error) {
      // Not the item's fault (an interrupt, a provider outage, a cost limit): no new item
      // starts, the running ones end, and the run stops with the first such error.
      fatal ??= { error };
      progress.running -= 1;
      report();
      return;
    }
    outcomes[item.index] = outcome;
    progress.running -= 1;
    if (outcome.status === 'completed') progress.done += 1;
    else progress.failed += 1;
    report();
    publish();
  });
  if (fatal !== null) throw (fatal as { error: unknown }).error;

  const results = items.map((item) => {
    const outcome = outcomes[item.index] as ItemOutcome;
    return outcome.status === 'completed'
      ? { id: item.id, index: item.index, item: item.value, status: 'completed', output: outcome.output }
      : {
          id: item.id,
          index: item.index,
          item: item.value,
          status: 'failed',
          output: null,
          error: outcome.deadLetter.error,
        };
  });
  const resultsJson = JSON.stringify(results);
  const failed = results.filter((result) => result.status === 'failed').map((result) => result.id);
  const [only] = results;
  if (only && results.length === 1) {
    recordItemResult(context, {
      status: only.status === 'completed' ? 'completed' : 'failed',
      output: only.output,
      ...(only.error === undefined ? {} : { error: only.error }),
    });
  }
  let result: StepResult = { response: resultsJson };
  if (map.reduce) {
    // Keyed by what it sees: a retry that changed an item's result runs the reduce again.
    const reduceScope: TemplateScope = {
      ...scope,
      map: {
        results: resultsJson,
        completed: results.length - failed.length,
        failed: failed.length,
        total: results.length,
      },
    };
    const place: StepPlace = {
      index,
      number: `${round}`,
      path: `${specKey}.reduce`,
      label: `${stepLabel(options.stepLabels, index, mapId, 'map')} reduce`,
      branch: null,
      stepName: `${mapName}/reduce`,
    };
    const reduced = await input.runLeaf(
      context,
      options,
      place,
      `${prefix}/reduce-${shortHash(resultsJson)}`,
      map.reduce,
      reduceScope,
    );
    result =
      'shell' in map.reduce
        ? { response: reduced.response }
        : { response: reduced.response, lastResponse: reduced.response ?? '' };
  }
  if (failed.length > 0) {
    throw new MapItemsFailedError({
      sessionId: session.id,
      stepId: mapId,
      failed,
      completed: results.length - failed.length,
      total: results.length,
    });
  }
  return result;
}
