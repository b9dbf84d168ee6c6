// Traces for a library user: a store that builds the spans of what it records (journal-spans.ts,
// the CLI's builder) and hands them to an OpenTelemetry tracer provider, the one the user
// registered with `@opentelemetry/api` unless one is handed in, as any instrumentation does.
// Spans start when their first event is appended and end with their last, with the journal's
// times, so a run nests under the span its caller has open; the provider draws their ids.
// `@opentelemetry/api` is loaded here only, when a store is traced.
import type { Context, Link, Span, SpanContext, TracerProvider } from '@opentelemetry/api';
import { createRedactor } from '@resume/core';
import type { AppendBatch, SessionStore } from '@resume/core/spec';
import { JournalSpans, type SpanRecord } from './journal-spans.js';
import { type PromptCopy, readPromptCopies } from './prompt-copy.js';
import { storeWith } from './store-with.js';

export interface TracedStoreOptions {
  /** Where the spans go (default: the provider registered with `@opentelemetry/api`, as for any instrumentation). */
  tracerProvider?: TracerProvider;
  /**
   * Model and tool text on the spans (prompts when the runner keeps them: `capturePrompts`).
   * Default: `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` in `env`, the GenAI conventions' switch.
   */
  captureContent?: boolean;
  /** The environment whose secrets are scrubbed from captured text, and the switch is read from (default: `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Whether the GenAI conventions' switch asks for prompt, completion and tool text on spans. */
export const capturesContent = (env: Readonly<Record<string, string | undefined>>): boolean =>
  env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true';

interface Builder {
  spans: JournalSpans;
  caller: Context;
  prompts: Map<string, PromptCopy>;
}

const STATUS_CODES = { unset: 0, ok: 1, error: 2 } as const;
const SAMPLED = 1;

/**
 * The store as it is, plus spans of everything appended through it. Closing it ends the spans
 * still open (a run left waiting for a person, or stopped without a status); flushing and
 * exporting stay the provider's business.
 */
export async function tracedStore(store: SessionStore, options: TracedStoreOptions = {}): Promise<SessionStore> {
  const api = await import('@opentelemetry/api');
  const env = options.env ?? process.env;
  const captureContent = options.captureContent ?? capturesContent(env);
  const redactor = createRedactor({ env: { ...env } });
  const tracer = (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer('conclave');
  const live = new Map<string, Span>();
  /** The runs' spans, also once ended: a resume in this process links to the run before it. */
  const runs = new Map<string, SpanContext>();
  /** Per session: its builder, the caller of its latest append, and the prompt copies of the batch being added. */
  const builders = new Map<string, Builder>();

  const contextOf = (spanId: string, traceId: string): SpanContext =>
    live.get(spanId)?.spanContext() ?? runs.get(spanId) ?? { traceId, spanId, traceFlags: SAMPLED, isRemote: true };

  const start = (record: SpanRecord, caller: Context) => {
    const parent = record.parentSpanId === null ? undefined : live.get(record.parentSpanId);
    const links: Link[] = record.links.map((link) => ({
      context: contextOf(link.spanId, link.traceId),
      attributes: link.attributes,
    }));
    const span = tracer.startSpan(
      record.name,
      { startTime: record.startMs, attributes: record.attributes, links },
      parent ? api.trace.setSpan(caller, parent) : caller,
    );
    live.set(record.spanId, span);
    if (record.parentSpanId === null) runs.set(record.spanId, span.spanContext());
  };
  const end = (records: SpanRecord[]) => {
    for (const record of records) {
      const span = live.get(record.spanId);
      if (!span) continue;
      live.delete(record.spanId);
      // Model calls are named and described once their usage is journaled, after they started.
      span.updateName(record.name);
      span.setAttributes(record.attributes);
      if (record.status.code !== 'unset') {
        span.setStatus({
          code: STATUS_CODES[record.status.code],
          ...(record.status.message ? { message: record.status.message } : {}),
        });
      }
      span.end(record.endMs);
    }
  };
  const builderOf = (sessionId: string, caller: Context) => {
    let builder = builders.get(sessionId);
    if (!builder) {
      const prompts = new Map<string, PromptCopy>();
      const current: Builder = {
        caller,
        prompts,
        spans: new JournalSpans(sessionId, {
          captureContent,
          redact: (text) => redactor.redactText(text),
          prompts,
          onStart: (record) => start(record, current.caller),
        }),
      };
      builder = current;
      builders.set(sessionId, builder);
    }
    // Each append's caller: a run started later in this process nests under its own caller's span.
    builder.caller = caller;
    return builder;
  };

  const overrides: Partial<SessionStore> = {
    async append(sessionId: string, batch: AppendBatch) {
      const caller = api.context.active();
      await store.append(sessionId, batch);
      // Tracing never fails a run: a span that cannot be made is left out.
      try {
        const { spans, prompts } = builderOf(sessionId, caller);
        if (captureContent) await readPromptCopies(batch.events, store, prompts);
        for (const event of batch.events) end(spans.add(event));
        prompts.clear();
      } catch {
        // The batch is durable; its spans are not essential.
      }
    },
    async close() {
      for (const { spans } of builders.values()) end(spans.finish());
      builders.clear();
      await store.close();
    },
  };
  return storeWith(store, overrides);
}
