// A library user's traces: a run over a store wrapped by `tracedStore` gives the tracer provider
// the user registered (as for any OpenTelemetry instrumentation) the spans the CLI sends and
// `conclave sessions trace` writes, built from the same journal.
import { context, type Span, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createEngine } from '@resume/core';
import { createMemoryStore } from '@resume/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunner } from '../runner/runner.js';
import { createFakeModels, createRunnerInterruptedAt } from '../runner/test-kit.js';
import { type SpanRecord, spansOfJournal, tracedStore } from './index.js';

interface ComparableSpan {
  name: string;
  parent: string | null;
  attributes: Record<string, unknown>;
  status: string;
  startMs: number;
  endMs: number;
}

const STATUS = ['unset', 'ok', 'error'] as const;
const millis = ([seconds, nanos]: [number, number]) => seconds * 1000 + Math.round(nanos / 1e6);
const byStart = (a: ComparableSpan, b: ComparableSpan) =>
  a.startMs - b.startMs || a.name.localeCompare(b.name) || a.endMs - b.endMs;

function exported(exporter: InMemorySpanExporter): ComparableSpan[] {
  const spans = exporter.getFinishedSpans();
  const names = new Map(spans.map((span) => [span.spanContext().spanId, span.name]));
  return spans
    .map((span) => ({
      name: span.name,
      parent: span.parentSpanContext ? (names.get(span.parentSpanContext.spanId) ?? 'outside') : null,
      attributes: { ...span.attributes },
      status: STATUS[span.status.code] ?? 'unset',
      startMs: millis(span.startTime),
      endMs: millis(span.endTime),
    }))
    .sort(byStart);
}

function built(records: SpanRecord[]): ComparableSpan[] {
  const names = new Map(records.map((record) => [record.spanId, record.name]));
  return records
    .map((record) => ({
      name: record.name,
      parent: record.parentSpanId === null ? null : (names.get(record.parentSpanId) ?? 'outside'),
      attributes: record.attributes,
      status: record.status.code,
      startMs: record.startMs,
      endMs: record.endMs,
    }))
    .sort(byStart);
}

async function journalOf(store: ReturnType<typeof createMemoryStore>, id: string) {
  const events = [];
  for await (const event of store.read(id)) events.push(event);
  return events;
}

describe('tracing in a library', () => {
  afterEach(() => {
    trace.disable();
    context.disable();
  });

  it('gives the tracer provider the user registered the spans the CLI sends, from the same journal', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    trace.setGlobalTracerProvider(provider);
    const store = createMemoryStore();
    const engine = createEngine({ store: await tracedStore(store, { env: {} }) });
    const runner = createRunner({ engine, models: createFakeModels().resolve, workspaceDir: process.cwd() });
    const result = await runner.start({ mode: 'discussion', task: 'Should we split the monolith?' });
    await engine.close();
    await provider.forceFlush();

    const spans = exported(exporter);
    const expected = built(
      spansOfJournal(result.sessionId, await journalOf(store, result.sessionId), {
        captureContent: false,
      }),
    );
    expect(spans.map((span) => span.name)).toContain('chat fake-model');
    expect(spans.filter((span) => span.name === 'chat fake-model')).toHaveLength(8);
    expect(spans).toEqual(expected);
    // One trace, the run's span its root.
    const finished = exporter.getFinishedSpans();
    expect(new Set(finished.map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(spans.find((span) => span.name === 'conclave run')?.parent).toBeNull();
  });

  it('uses a provider handed in, and puts the run under the span the caller has open', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    // As an application's OpenTelemetry set-up registers it: the active span follows async calls.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const store = createMemoryStore();
    const engine = createEngine({ store: await tracedStore(store, { tracerProvider: provider, env: {} }) });
    const runner = createRunner({ engine, models: createFakeModels().resolve, workspaceDir: process.cwd() });
    const request: Span = provider.getTracer('app').startSpan('handle request');
    await context.with(trace.setSpan(context.active(), request), () =>
      runner.start({ mode: 'discussion', task: 'Should we split the monolith?' }),
    );
    request.end();
    await engine.close();
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const run = spans.find((span) => span.name === 'conclave run');
    expect(run?.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([request.spanContext().traceId]));
  });

  it('puts model text on the spans only when the switch in the environment given asks for it', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const run = async (env: Record<string, string>) => {
      exporter.reset();
      const engine = createEngine({ store: await tracedStore(createMemoryStore(), { tracerProvider: provider, env }) });
      const runner = createRunner({ engine, models: createFakeModels().resolve, workspaceDir: process.cwd() });
      await runner.start({ mode: 'discussion', task: 'Should we split the monolith?' });
      await engine.close();
      await provider.forceFlush();
      return exporter.getFinishedSpans().filter((span) => span.name === 'chat fake-model');
    };
    const without = await run({});
    expect(without).toHaveLength(8);
    expect(without.every((span) => span.attributes['gen_ai.output.messages'] === undefined)).toBe(true);
    const withContent = await run({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    expect(withContent).toHaveLength(8);
    expect(withContent.every((span) => typeof span.attributes['gen_ai.output.messages'] === 'string')).toBe(true);
  });

  it('puts on each model call span the prompt the model was given, kept only when prompts are captured', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const run = async (capturePrompts: boolean) => {
      exporter.reset();
      const store = createMemoryStore();
      const switchOn = { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' };
      const engine = createEngine({ store: await tracedStore(store, { tracerProvider: provider, env: switchOn }) });
      const models = createFakeModels();
      const runner = createRunner({ engine, models: models.resolve, workspaceDir: process.cwd(), capturePrompts });
      const result = await runner.start({ mode: 'discussion', task: 'Should we split the monolith?' });
      await engine.close();
      await provider.forceFlush();
      const calls = exporter
        .getFinishedSpans()
        .filter((span) => span.name === 'chat fake-model')
        .sort((a, b) => millis(a.startTime) - millis(b.startTime));
      return { calls, models, journal: await journalOf(store, result.sessionId) };
    };

    const captured = await run(true);
    expect(captured.calls).toHaveLength(captured.models.calls.length);
    captured.calls.forEach((span, index) => {
      const given = captured.models.calls[index]?.request;
      expect(JSON.parse(String(span.attributes['gen_ai.input.messages']))).toEqual(
        given?.messages.map((message) => ({
          role: message.role,
          parts: [{ type: 'text', content: message.content }],
          ...(message.speaker ? { name: message.speaker } : {}),
        })),
      );
      expect(JSON.parse(String(span.attributes['gen_ai.system_instructions']))).toEqual([
        { type: 'text', content: given?.system },
      ]);
    });
    // The journal names each copy by its digest; the text itself is in the store's blobs.
    const usage = captured.journal.filter((event) => event.type === 'usage-recorded');
    expect(usage.every((event) => /^[0-9a-f]{64}$/.test(String(event.promptBlob)))).toBe(true);

    const notKept = await run(false);
    expect(notKept.calls.every((span) => span.attributes['gen_ai.input.messages'] === undefined)).toBe(true);
    expect(notKept.journal.some((event) => event.type === 'usage-recorded' && event.promptBlob !== undefined)).toBe(
      false,
    );
  });

  it('links a resume to the run it continues, and ends the interrupted run as the CLI does', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const store = createMemoryStore();
    const engine = createEngine({ store: await tracedStore(store, { tracerProvider: provider, env: {} }) });
    const models = createFakeModels();
    const options = { engine, models: models.resolve, workspaceDir: process.cwd() };
    const interrupted = await createRunnerInterruptedAt('round 1, agent critic', options).start({
      mode: 'discussion',
      task: 'Should we split the monolith?',
    });
    expect(interrupted.status).toBe('interrupted');
    await createRunner(options).resume(interrupted.sessionId);
    await engine.close();
    await provider.forceFlush();

    const spans = exporter.getFinishedSpans();
    const first = spans.find((span) => span.name === 'conclave run');
    const resume = spans.find((span) => span.name === 'conclave resume');
    expect(first?.attributes['conclave.session.status']).toBe('interrupted');
    expect(resume?.links[0]?.context.spanId).toBe(first?.spanContext().spanId);
    expect(resume?.links[0]?.attributes).toEqual({ 'conclave.link.reason': 'resumed' });
    const expected = built(
      spansOfJournal(interrupted.sessionId, await journalOf(store, interrupted.sessionId), { captureContent: false }),
    );
    expect(exported(exporter)).toEqual(expected);
  });
});
