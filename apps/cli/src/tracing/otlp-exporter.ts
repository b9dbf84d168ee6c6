// The OTLP exporter the settings ask for (HTTP with protobuf, the default, or JSON), which
// remembers the first failure so the user is told once instead of spans vanishing silently.
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { TracingSettings } from './tracing-settings.js';

export async function createOtlpExporter(
  settings: TracingSettings,
): Promise<{ exporter: SpanExporter; failure: () => string | null }> {
  // Both read the endpoint, headers, timeout and compression from the OTEL_EXPORTER_OTLP_* variables.
  const { OTLPTraceExporter } =
    settings.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  const inner = new OTLPTraceExporter();
  let failure: string | null = null;
  const exporter: SpanExporter = {
    export(spans, done) {
      inner.export(spans, (result) => {
        if (result.code !== 0) failure ??= result.error?.message ?? 'the collector refused them';
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush(),
  };
  return { exporter, failure: () => failure };
}
