// The span records of the journal's spans (@resume/runner/tracing) as the OpenTelemetry SDK's finished spans, so its
// exporters and serializers take them as they are (ids, times and links come from the journal,
// not from a tracer).
import type { HrTime, SpanStatusCode } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { SpanRecord } from '@resume/runner/tracing';

// The API's enums, as numbers: importing them would load @opentelemetry/api for two constants.
const SPAN_KIND_INTERNAL = 0;
const SAMPLED = 1;
const STATUS_CODES: Record<SpanRecord['status']['code'], SpanStatusCode> = { unset: 0, ok: 1, error: 2 };

export const INSTRUMENTATION_SCOPE = { name: 'conclave' };

const hrTime = (ms: number): HrTime => [Math.floor(ms / 1000), (ms % 1000) * 1e6];

export function readableSpan(record: SpanRecord, resource: Resource): ReadableSpan {
  const duration = Math.max(0, record.endMs - record.startMs);
  return {
    name: record.name,
    kind: SPAN_KIND_INTERNAL,
    spanContext: () => ({ traceId: record.traceId, spanId: record.spanId, traceFlags: SAMPLED }),
    ...(record.parentSpanId
      ? { parentSpanContext: { traceId: record.traceId, spanId: record.parentSpanId, traceFlags: SAMPLED } }
      : {}),
    startTime: hrTime(record.startMs),
    endTime: hrTime(record.endMs),
    duration: hrTime(duration),
    status: {
      code: STATUS_CODES[record.status.code],
      ...(record.status.message ? { message: record.status.message } : {}),
    },
    attributes: record.attributes,
    links: record.links.map((link) => ({
      context: { traceId: link.traceId, spanId: link.spanId, traceFlags: SAMPLED },
      attributes: link.attributes,
    })),
    events: [],
    ended: true,
    resource,
    instrumentationScope: INSTRUMENTATION_SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** The process's resource: Conclave and its version, with OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES on top. */
export async function conclaveResource(version: string): Promise<Resource> {
  const { detectResources, envDetector, resourceFromAttributes } = await import('@opentelemetry/resources');
  return resourceFromAttributes({ 'service.name': 'conclave', 'service.version': version }).merge(
    detectResources({ detectors: [envDetector] }),
  );
}
