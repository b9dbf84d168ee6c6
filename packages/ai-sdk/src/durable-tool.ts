// `durableTool(session, tool, { safety })`: an AI SDK tool whose `execute` is a durable step
// of the session. A re-run of the same code gets the recorded output back without executing
// the tool again; a tool that started but never finished is handled by its declared safety
// (an `idempotent` one runs again, an `unsafe` one asks `onUncertain` or stops the run with
// an `UncertainStepError`). The tool call id the model gave is recorded with the model's
// response, so it is the same on every replay: tools may pass it to APIs that deduplicate.
import {
  type Session,
  StepFailedError,
  type StepSafety,
  type UncertainDecision,
  type UncertainStepInfo,
  UsageError,
} from '@resume/core';
import type { Tool, ToolExecutionOptions } from 'ai';
import { haltWith } from './halt.js';
import { fromJson, toJson } from './journal-json.js';

export interface DurableToolOptions {
  /** Names the tool's steps (`tool:<name>`); default `tool`. `durableTools` uses each tool's key. */
  name?: string;
  /** `idempotent` (default: reads) runs again when uncertain; `unsafe` (writes, side effects) asks first. */
  safety?: StepSafety;
  /** Decides what an uncertain unsafe tool call does on resume: run it again, skip it or stop. */
  onUncertain?: (step: UncertainStepInfo) => UncertainDecision | Promise<UncertainDecision>;
  /** What a skipped tool call returns to the model (required when `onUncertain` may say `skip`). */
  skipValue?: unknown;
}

/** The tool with its `execute` journaled as a durable step. */
export function durableTool<T extends Tool>(session: Session, tool: T, options: DurableToolOptions = {}): T {
  const execute = tool.execute;
  if (typeof execute !== 'function') {
    throw new UsageError(
      `durableTool(${options.name ?? 'tool'}): the tool has no execute function, so there is nothing to make durable (a provider-executed tool runs at the provider, and its result comes back in the model's recorded response).`,
    );
  }
  const key = `tool:${options.name ?? 'tool'}`;
  const stepOptions = {
    safety: options.safety ?? 'idempotent',
    ...(options.onUncertain ? { onUncertain: options.onUncertain } : {}),
    ...(options.skipValue === undefined ? {} : { skipValue: toJson(options.skipValue) }),
  };
  const durableExecute = async (input: unknown, executionOptions: ToolExecutionOptions<unknown>) => {
    const output = await session
      .step(
        key,
        async ({ signal }) => {
          const abortSignal = executionOptions.abortSignal
            ? AbortSignal.any([executionOptions.abortSignal, signal])
            : signal;
          const result = execute(input, { ...executionOptions, abortSignal });
          return toJson(await finalValue(result));
        },
        stepOptions as Parameters<Session['step']>[2],
      )
      .catch((error: unknown) => {
        throw toolError(session, error);
      });
    return fromJson(output);
  };
  return { ...tool, execute: durableExecute } as T;
}

/** Every tool of a tool set made durable, each named by its key (`tool:weather`). */
export function durableTools<T extends Record<string, Tool>>(
  session: Session,
  tools: T,
  options: Omit<DurableToolOptions, 'name'> = {},
): T {
  const wrapped: Record<string, Tool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    wrapped[name] = typeof tool.execute === 'function' ? durableTool(session, tool, { ...options, name }) : tool;
  }
  return wrapped as T;
}

/**
 * What the AI SDK sees when a durable tool call fails. The tool's own failure is handed on as
 * the tool threw it (the model reads it as a tool error); a replayed failure as an error with
 * the recorded name and message, so the model reads the same text. Anything else means the
 * session cannot go on: it is kept for the next model call to throw (see halt.ts).
 */
function toolError(session: Session, error: unknown): unknown {
  if (StepFailedError.isInstance(error)) {
    if (!error.replayed && error.cause !== undefined) return error.cause;
    const recorded = error.attempts.at(-1)?.error;
    if (!recorded) return error;
    const replayed = new Error(recorded.message);
    replayed.name = recorded.name;
    return replayed;
  }
  haltWith(session, error);
  return error;
}

/** A tool may stream preliminary results (an async iterable): the last one is its output. */
async function finalValue(result: unknown): Promise<unknown> {
  const awaited = await result;
  if (awaited === null || typeof awaited !== 'object' || !(Symbol.asyncIterator in awaited)) return awaited;
  let last: unknown;
  for await (const item of awaited as AsyncIterable<unknown>) last = item;
  return last;
}
