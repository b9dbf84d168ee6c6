// A map step: its `do:` steps run for every work item, up to `parallel` items at once, each
// item its own durable unit (its steps keyed by the item's id, in its own branch); an item
// that fails after its retries goes to the dead-letter list without stopping the others;
// `reduce:` sees every item's result. See map-journal.ts for what is written.
import { createHash } from 'node:crypto';
import { type ChatMessage, ConfigError, type JsonValue, type MessageInput, StepFailedError } from '@resume/core/spec';
import { WorkspaceAccessError } from '../files/workspace-access-error.js';
import {
  identifyItems,
  itemKeySegment,
  itemsSourceHash,
  type MapItem,
  resolveItemValues,
} from '../workflow/map-items.js';
import { DEFAULT_MAX_PARALLEL } from '../workflow/map-limits.js';
import { workflowStepIds } from '../workflow/step-ids.js';
import { itemText, renderTemplate, type StepResult, type TemplateScope } from '../workflow/template.js';
import { isShellStep, type WorkflowMapStep } from '../workflow/workflow-spec.js';
import {
  type ChainOptions,
  type ItemTurn,
  runAgentStep,
  runItemAgentStep,
  runShellStep,
  type StepPlace,
} from './chain-steps.js';
import { MapItemsFailedError } from './map-items-failed-error.js';
import {
  type DeadLetter,
  deadLetterKey,
  deadLetterSchema,
  itemBranch,
  itemDoneLabel,
  itemPrefix,
  itemsKey,
  mapItemListSchema,
  mapRetries,
} from './map-journal.js';
import { checkpoint, type ModeContext } from './mode-context.js';
import { ShellCommandFailedError } from './shell-command.js';
import { writeOutputFiles } from './workspace-output.js';

export interface MapStepInput {
  index: number;
  /** The map step's stable id. */
  id: string;
  /** Its journal key prefix (`step[review]`). */
  prefix: string;
  step: WorkflowMapStep;
  scope: TemplateScope & { steps: StepResult[] };
}

type ItemOutcome =
  | { status: 'completed'; output: string | null; turns: ItemTurn[] }
  | { status: 'failed'; deadLetter: DeadLetter; turns: ItemTurn[] };

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
  if (!ShellCommandFailedError.isInstance(cause) && !WorkspaceAccessError.isInstance(cause)) return null;
  return { message: cause.message, attempts: error.attempts.length };
}

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
  const items = await session.step(
    itemsKey(prefix, itemsSourceHash(map.items)),
    async () =>
      identifyItems(
        await resolveItemValues({
          source: map.items,
          workspaceDir: context.workspaceDir,
          key: `${specKey}.items`,
          render: (template) => renderTemplate(template, scope, at(`${specKey}.items`)),
        }),
      ),
    { codec: itemListCodec, inserted },
  );
  if (items.length === 0) context.emit({ type: 'notice', text: `Map step ${mapId} has no items.` });
  const limit = context.maxParallel ?? DEFAULT_MAX_PARALLEL;
  const parallel = Math.max(1, Math.min(map.parallel, limit));
  if (parallel < map.parallel)
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

  const runItem = async (item: MapItem): Promise<ItemOutcome> => {
    const segment = itemKeySegment(item.id);
    const base = itemPrefix(prefix, segment);
    const branch = itemBranch(mapId, segment);
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
        { codec: deadLetterCodec, branch, inserted },
      );
      if (number === generation) return { status: 'failed', deadLetter: letter, turns: [] };
    }
    const itemScope: TemplateScope & { stepsById: Map<string, StepResult> } = {
      ...scope,
      stepsById: new Map(scope.stepsById),
      item: { value: item.value, id: item.id, index: item.index },
    };
    const turns: ItemTurn[] = [];
    const histories = new Map<string, ChatMessage[]>();
    const agentTurn = async (
      key: string,
      agentName: string,
      text: string,
      completionLabel?: (attempt: number) => string,
    ): Promise<string> => {
      const history = histories.get(agentName) ?? [];
      const turn = await runItemAgentStep(context, options, {
        key,
        agentName,
        input: text,
        history,
        round,
        branch,
        completionLabel,
      });
      history.push(
        { role: 'user', content: text, speaker: 'workflow' },
        { role: 'assistant', content: turn.answer, speaker: agentName },
      );
      histories.set(agentName, history);
      turns.push(turn);
      return turn.answer;
    };
    const env = {
      CONCLAVE_ITEM_INDEX: String(item.index),
      CONCLAVE_ITEM_ID: item.id,
      CONCLAVE_ITEM: itemText(item.value),
    };
    const lastStep = map.do.length - 1;
    let current = 'items';
    let output: string | null = null;
    try {
      for (const [position, doStep] of map.do.entries()) {
        const doId = doIds[position] ?? String(position + 1);
        current = doId;
        // The item's last step marks the item done in the same append as its completion.
        const completionLabel =
          position === lastStep && map.artifacts.length === 0 ? () => itemDoneLabel(mapId, item.id) : undefined;
        const place: StepPlace = {
          prefix: `${base}/${doId}`,
          specKey: `${specKey}.do[${position}]`,
          label: `step ${round} item ${item.id}, do ${position + 1}`,
          stepName: `${mapName}/${doStep.name ?? doStep.id ?? String(position + 1)}`,
          round,
          branch,
          env,
          quiet: true,
          ...(completionLabel ? { completionLabel } : {}),
          fixer: (key, agentName, text) => agentTurn(key, agentName, text),
        };
        if (isShellStep(doStep)) {
          const result = await runShellStep(context, options, place, doStep, itemScope);
          itemScope.stepsById.set(doId, {
            response: result.stdoutTail,
            exitCode: result.exitCode,
            skipped: result.skipped === true,
          });
          output = result.stdoutTail;
        } else {
          const text = renderTemplate(doStep.input, itemScope, at(`${place.specKey}.input`));
          const answer = await agentTurn(`${place.prefix}/${doStep.agent}`, doStep.agent, text, completionLabel);
          itemScope.stepsById.set(doId, { response: answer });
          itemScope.lastResponse = answer;
          output = answer;
        }
      }
      if (map.artifacts.length > 0) {
        current = 'artifacts';
        const files = map.artifacts.map((artifact, position) => ({
          path: renderTemplate(artifact.path, itemScope, at(`${specKey}.artifacts[${position}].path`)),
          content: renderTemplate(artifact.from, itemScope, at(`${specKey}.artifacts[${position}].from`)),
        }));
        await writeOutputFiles(context, `${base}/artifacts`, files, { branch, inserted });
        await checkpoint(context, itemDoneLabel(mapId, item.id));
      } else {
        // Marked with the last step's completion: live views hear of it now (not when replayed).
        const label = itemDoneLabel(mapId, item.id);
        const marked = labelsBefore.has(label)
          ? undefined
          : session.state.checkpoints.findLast((checkpointed) => checkpointed.label === label);
        if (marked) context.emit({ type: 'checkpoint', seq: marked.seq, label });
      }
      return { status: 'completed', output, turns };
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
        branch,
        inserted,
      });
      return { status: 'failed', deadLetter: recorded, turns };
    }
  };

  // Items finish in any order; their messages join the transcript in item order, so a run's
  // transcript does not depend on timing (and a resumed run's equals an uninterrupted one's).
  const outcomes: Array<ItemOutcome | undefined> = new Array(items.length);
  let published = 0;
  const publishTurn = (turn: ItemTurn) => {
    const messages: Array<[string, MessageInput]> = [
      [`step:${turn.key}/input`, { role: 'user', content: turn.input, speaker: 'workflow', round }],
      [`step:${turn.key}`, { role: 'assistant', content: turn.answer, speaker: turn.agent, round }],
    ];
    for (const [tag, message] of messages) {
      if (publishedTags.has(tag)) continue;
      publishedTags.add(tag);
      const stored = session.addMessage({ ...message, tags: [`item:${mapId}`, tag] });
      context.emit({ type: 'turn-completed', message: stored, replayed: false });
    }
  };
  const publish = () => {
    for (let outcome = outcomes[published]; outcome !== undefined; outcome = outcomes[published]) {
      for (const turn of outcome.turns) publishTurn(turn);
      published += 1;
    }
  };

  const progress = { total: items.length, done: 0, running: 0, failed: 0 };
  const report = () => context.emit({ type: 'map-progress', stepId: mapId, ...progress });
  report();
  let next = 0;
  let fatal: { error: unknown } | null = null;
  const worker = async () => {
    while (fatal === null && next < items.length) {
      const item = items[next] as MapItem;
      next += 1;
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
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
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
  let result: StepResult = { response: resultsJson };
  if (map.reduce) {
    // Keyed by what it sees: a retry that changed an item's result runs the reduce again.
    const reducePrefix = `${prefix}/reduce-${shortHash(resultsJson)}`;
    const reduceScope: TemplateScope = {
      ...scope,
      map: {
        results: resultsJson,
        completed: results.length - failed.length,
        failed: failed.length,
        total: results.length,
      },
    };
    const reduce = map.reduce;
    if (isShellStep(reduce)) {
      const output = await runShellStep(
        context,
        options,
        {
          prefix: reducePrefix,
          specKey: `${specKey}.reduce`,
          label: `step ${round} reduce`,
          stepName: `${mapName}/reduce`,
          round,
          fixer: (key, agentName, text) => runAgentStep(context, options, key, agentName, text, round),
        },
        reduce,
        reduceScope,
      );
      result = { response: output.stdoutTail };
    } else {
      const text = renderTemplate(reduce.input, reduceScope, at(`${specKey}.reduce.input`));
      const answer = await runAgentStep(context, options, `${reducePrefix}/${reduce.agent}`, reduce.agent, text, round);
      result = { response: answer, lastResponse: answer };
    }
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
