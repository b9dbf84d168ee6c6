// `durable(session)`: a language model middleware that makes every model call of AI SDK
// code a durable step of a Conclave session. Calls are keyed by their order
// (`model:generate` #1, #2...): a re-run of the same code after a crash gets the recorded
// responses back (a stream is replayed from the journal as the same stream parts) and only
// the call that never finished goes to the provider. Each call's usage and cost are
// journaled with it, and a recorded response is only handed to the same request.
import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4Middleware,
  type LanguageModelV4StreamPart,
  type LanguageModelV4StreamResult,
  type LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { type JsonValue, type Session, type StepCodec, StepFailedError } from '@resume/core';
import { costOf } from '@resume/runner/pricing';
import { throwIfHalted } from './halt.js';
import { fromJson, hashOf, toJson } from './journal-json.js';
import { PromptChangedError } from './prompt-changed-error.js';

export interface ModelCallCost {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
}

export interface DurableModelOptions {
  /** Prefix of the calls' step keys (default `model`): `model:generate`, `model:stream`. */
  name?: string;
  /** Who is speaking, written in the usage records (default none). */
  agent?: string;
  /** Cost in USD of one call (default: Conclave's price table; null when the model's price is unknown). */
  cost?: (call: ModelCallCost) => number | null;
  /**
   * Refuse to replay a recorded response to another request (prompt, tools, settings) with a
   * `PromptChangedError` (default true).
   */
  verifyRequest?: boolean;
}

/** What the journal keeps of a `doGenerate` call. */
interface GenerateRecord {
  requestHash: string;
  result: JsonValue;
}

/** What the journal keeps of a `doStream` call: the stream's parts, in order. */
interface StreamRecord {
  requestHash: string;
  request: JsonValue;
  response: JsonValue;
  parts: JsonValue[];
  /** The consumer stopped reading before the end: the parts it had been given. */
  cancelled?: boolean;
}

export function durable(session: Session, options: DurableModelOptions = {}): LanguageModelV4Middleware {
  const name = options.name ?? 'model';
  const verify = options.verifyRequest ?? true;
  const cost = options.cost ?? defaultCost;

  function recordUsage(
    stepKey: string,
    model: LanguageModelV4,
    modelId: string | undefined,
    usage: LanguageModelV4Usage,
  ) {
    const call: ModelCallCost = {
      provider: model.provider,
      model: modelId ?? model.modelId,
      inputTokens: usage.inputTokens.total ?? 0,
      outputTokens: usage.outputTokens.total ?? 0,
    };
    session.record({
      type: 'usage-recorded',
      provider: call.provider,
      model: call.model,
      agent: options.agent ?? null,
      stepKey,
      inputTokens: call.inputTokens,
      outputTokens: call.outputTokens,
      costUsd: cost(call),
    });
  }

  function checkRequest(stepKey: string, recordedHash: string, requestedHash: string): void {
    if (verify && recordedHash !== requestedHash) {
      throw new PromptChangedError({ sessionId: session.id, stepKey, recordedHash, requestedHash });
    }
  }

  return {
    specificationVersion: 'v4',

    async wrapGenerate({ params, model }) {
      throwIfHalted(session);
      const key = `${name}:generate`;
      const requestHash = hashOf(requestOf(params));
      let recorded: GenerateRecord;
      try {
        recorded = await session.step(
          key,
          async ({ signal }): Promise<GenerateRecord> => {
            const result = await model.doGenerate({ ...params, abortSignal: combined(params.abortSignal, signal) });
            recordUsage(key, model, result.response?.modelId, result.usage);
            return { requestHash, result: toJson(withoutBodies(result)) };
          },
          { retry: { attempts: 1, retryOn: isRetryableCall }, codec: recordCodec<GenerateRecord>() },
        );
      } catch (error) {
        throw asCallError(error);
      }
      checkRequest(key, recorded.requestHash, requestHash);
      return fromJson(recorded.result) as LanguageModelV4GenerateResult;
    },

    async wrapStream({ params, model }) {
      throwIfHalted(session);
      const key = `${name}:stream`;
      const requestHash = hashOf(requestOf(params));
      let sink!: ReadableStreamDefaultController<LanguageModelV4StreamPart>;
      let source: ReadableStreamDefaultReader<LanguageModelV4StreamPart> | undefined;
      let cancelled = false;
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          sink = controller;
        },
        async cancel(reason) {
          cancelled = true;
          await source?.cancel(reason);
        },
      });
      const forward = (part: LanguageModelV4StreamPart) => {
        if (!cancelled) sink.enqueue(part);
      };
      const opened = deferred<Omit<LanguageModelV4StreamResult, 'stream'>>();
      let live = false;

      const step = session.step(
        key,
        async ({ signal }): Promise<StreamRecord> => {
          live = true;
          const result = await model.doStream({ ...params, abortSignal: combined(params.abortSignal, signal) });
          opened.resolve({
            ...(result.request ? { request: result.request } : {}),
            ...(result.response ? { response: result.response } : {}),
          });
          const reader = result.stream.getReader();
          source = reader;
          const parts: JsonValue[] = [];
          let usage: { modelId: string | undefined; usage: LanguageModelV4Usage } | null = null;
          let modelId: string | undefined;
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              parts.push(toJson(value));
              if (value.type === 'response-metadata' && value.modelId) modelId = value.modelId;
              if (value.type === 'finish') usage = { modelId, usage: value.usage };
              forward(value);
            }
          } finally {
            reader.releaseLock();
          }
          if (usage) recordUsage(key, model, usage.modelId, usage.usage);
          return {
            requestHash,
            request: toJson({ url: result.request?.url }),
            response: toJson(result.response ?? {}),
            parts,
            ...(cancelled ? { cancelled: true } : {}),
          };
        },
        { retry: { attempts: 1, retryOn: isRetryableCall }, codec: recordCodec<StreamRecord>() },
      );

      step.then(
        (recorded) => {
          if (!live) {
            try {
              checkRequest(key, recorded.requestHash, requestHash);
            } catch (error) {
              opened.reject(error);
              return;
            }
            const request = fromJson(recorded.request) as LanguageModelV4StreamResult['request'];
            const response = fromJson(recorded.response) as LanguageModelV4StreamResult['response'];
            opened.resolve({
              ...(request && Object.keys(request).length > 0 ? { request } : {}),
              ...(response && Object.keys(response).length > 0 ? { response } : {}),
            });
            for (const part of recorded.parts) forward(fromJson(part) as LanguageModelV4StreamPart);
          }
          if (!cancelled) sink.close();
        },
        (error: unknown) => {
          const thrown = asCallError(error);
          opened.reject(thrown);
          if (!cancelled) sink.error(thrown);
        },
      );

      const metadata = await opened.promise;
      return { stream, ...metadata };
    },
  };
}

/** Records are plain JSON already: kept as they are. */
function recordCodec<T>(): StepCodec<T> {
  return { encode: (value) => toJson(value), decode: (value) => value as T };
}

function defaultCost(call: ModelCallCost): number | null {
  return costOf(call.model, { inputTokens: call.inputTokens, outputTokens: call.outputTokens });
}

/** What identifies a call's request: everything it sends except the abort signal and the HTTP headers. */
function requestOf(params: LanguageModelV4CallOptions): unknown {
  const { abortSignal: _signal, headers: _headers, ...request } = params;
  return request;
}

/** The request and response bodies are the provider's raw payloads: large, and the content holds what they say. */
function withoutBodies(result: LanguageModelV4GenerateResult): LanguageModelV4GenerateResult {
  const { request, response, ...rest } = result;
  const { body: _requestBody, ...keptRequest } = request ?? {};
  const { body: _responseBody, ...keptResponse } = response ?? {};
  return {
    ...rest,
    ...(request ? { request: keptRequest } : {}),
    ...(response ? { response: keptResponse } : {}),
  };
}

function combined(first: AbortSignal | undefined, second: AbortSignal): AbortSignal {
  return first ? AbortSignal.any([first, second]) : second;
}

/** What the journal calls retryable is what the AI SDK's own retries would do with the error. */
function isRetryableCall(error: unknown): boolean {
  return APICallError.isInstance(error) && error.isRetryable;
}

/**
 * The error the AI SDK sees from a failed call: the provider's own error on a live call, so
 * its retries work as without the middleware. A recorded failure that the code went on from
 * replays as an `APICallError` when it was one (retryable as it was, retried at once), so the
 * SDK takes the same course as in the recorded run.
 */
function asCallError(error: unknown): unknown {
  if (!StepFailedError.isInstance(error)) return error;
  if (!error.replayed) return error.cause ?? error;
  const last = error.attempts.at(-1)?.error;
  if (last?.name !== 'AI_APICallError') return error;
  return new APICallError({
    message: last.message,
    url: '',
    requestBodyValues: undefined,
    isRetryable: last.retryable,
    responseHeaders: { 'retry-after-ms': '0' },
    cause: error,
  });
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  // A rejection nobody waits for (the stream already handed over) is not unhandled.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
