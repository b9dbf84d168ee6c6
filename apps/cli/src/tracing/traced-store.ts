// Live traces: a store that hands every event it appends to the span builder and the spans
// that end to an OTLP exporter (batched by the SDK's processor). Used only when an OTLP
// endpoint is set, and even then the SDK and the exporter are loaded by the first append, so
// a command that only reads sessions loads none of them. Closing the store flushes what is
// left: a run's spans are sent when it ends, also after Ctrl+C.
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import type { AppendBatch, SessionStore } from '@resume/core/spec';
import { JournalSpans, type PromptCopy, readPromptCopies, storeWith } from '@resume/runner/tracing';
import type { TracingSettings } from './tracing-settings.js';

export interface TracedStoreOptions {
  settings: TracingSettings;
  version: string;
  /** The environment whose secrets are scrubbed from captured text (as the engine scrubs the journal). */
  env: Readonly<Record<string, string | undefined>>;
  /** Where a failure to send goes (stderr), once, when the store closes. */
  warn: (line: string) => void;
}

interface Pipeline {
  builder(sessionId: string, prompts: ReadonlyMap<string, PromptCopy>): JournalSpans;
  send(records: ReturnType<JournalSpans['add']>): void;
  /** Ends the spans still open, sends everything, and says what could not be sent. */
  close(): Promise<string | null>;
}

export function tracedStore(store: SessionStore, options: TracedStoreOptions): SessionStore {
  let pipeline: Promise<Pipeline> | null = null;
  /** The batches handed over so far, one after the other (a batch's prompt copies are read first). */
  let handedOver: Promise<void> = Promise.resolve();
  const prompts = new Map<string, PromptCopy>();
  const overrides: Partial<SessionStore> = {
    async append(sessionId: string, batch: AppendBatch) {
      await store.append(sessionId, batch);
      // Not awaited: the run goes on while the SDK loads (the first time) and the spans are built;
      // batches are handed over in the order they were appended. Tracing never fails a run: spans
      // that cannot be built are left out, and what could not be sent is said at the end.
      pipeline ??= createPipeline(options);
      const started = pipeline;
      handedOver = handedOver
        .then(() => started)
        .then(async ({ builder, send }) => {
          if (options.settings.captureContent) await readPromptCopies(batch.events, store, prompts);
          const spans = builder(sessionId, prompts);
          for (const event of batch.events) send(spans.add(event));
        })
        .catch(() => undefined)
        .finally(() => prompts.clear());
    },
    async close() {
      await handedOver;
      const failure = pipeline ? await pipeline.then((each) => each.close(), errorText) : null;
      if (failure !== null) {
        options.warn(`The run's traces could not all be sent to ${options.settings.endpoint}: ${failure}`);
      }
      await store.close();
    },
  };
  return storeWith(store, overrides);
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function createPipeline(options: TracedStoreOptions): Promise<Pipeline> {
  const [{ BatchSpanProcessor }, { createRedactor }, { conclaveResource, readableSpan }, exporter] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@resume/core/engine'),
    import('./otel-spans.js'),
    import('./otlp-exporter.js').then(({ createOtlpExporter }) => createOtlpExporter(options.settings)),
  ]);
  const resource = await conclaveResource(options.version);
  const redactor = createRedactor({ env: { ...options.env } });
  const builders = new Map<string, JournalSpans>();
  const processor: SpanProcessor = new BatchSpanProcessor({ exporter: exporter.exporter });
  const send: Pipeline['send'] = (records) => {
    for (const record of records) processor.onEnd(readableSpan(record, resource));
  };
  return {
    builder(sessionId, prompts) {
      let builder = builders.get(sessionId);
      if (!builder) {
        builder = new JournalSpans(sessionId, {
          captureContent: options.settings.captureContent,
          redact: (text) => redactor.redactText(text),
          prompts,
        });
        builders.set(sessionId, builder);
      }
      return builder;
    },
    send,
    async close() {
      try {
        for (const builder of builders.values()) send(builder.finish());
        await processor.shutdown();
      } catch (error) {
        return errorText(error);
      }
      return exporter.failure();
    },
  };
}
