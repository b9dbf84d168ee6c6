// `conclave sessions trace <id> [-o file] [--force]`: the session's whole history as an OTLP
// JSON trace, built from the journal after the fact (the same spans and ids a live export
// sends), so a session recorded without tracing opens in any OpenTelemetry viewer.

import { type PromptCopy, readPromptCopies, spansOfJournal } from '@resume/runner/tracing';
import type { CliContext } from '../context/cli-context.js';
import { resolveSession } from '../sessions/resolve-session.js';
import { capturesContent } from '../tracing/tracing-settings.js';
import { outputOptionsSchema, wholeJournal, writeOutput } from './sessions-export.js';

export async function traceSessionCommand(
  context: CliContext,
  input: { reference: string; options: Record<string, unknown> },
): Promise<number> {
  const options = outputOptionsSchema.parse(input.options);
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  const state = await engine.readSession(id);
  const events = await wholeJournal(engine, state);
  const [{ JsonTraceSerializer }, { resourceFromAttributes }, { readableSpan }, { createRedactor }] = await Promise.all(
    [
      import('@opentelemetry/otlp-transformer'),
      import('@opentelemetry/resources'),
      import('../tracing/otel-spans.js'),
      import('@resume/core/engine'),
    ],
  );
  const redactor = createRedactor({ env: { ...context.environment.env } });
  const captureContent = capturesContent(context.environment.env);
  const prompts = new Map<string, PromptCopy>();
  if (captureContent) await readPromptCopies(events, await context.store(), prompts);
  const records = spansOfJournal(id, events, {
    captureContent,
    redact: (text) => redactor.redactText(text),
    prompts,
  });
  // No version or host in the resource: the file depends on the journal alone.
  const resource = resourceFromAttributes({ 'service.name': 'conclave' });
  const request = JsonTraceSerializer.serializeRequest(records.map((record) => readableSpan(record, resource)));
  if (!request) throw new Error('The trace could not be serialized.');
  const text = `${JSON.stringify(JSON.parse(new TextDecoder().decode(request)), null, 2)}\n`;
  const target = writeOutput(context, text, options);
  if (target !== null) context.terminal.note(`Wrote the trace of session ${id} (${records.length} spans) to ${target}`);
  return 0;
}
