// Test helper: a local OTLP/HTTP trace receiver (a plain node http server) that keeps what
// each request sent, and reads the spans out of the JSON ones, flattened with their attributes.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string; attributes: Record<string, string | number | boolean> }[];
  status: { code?: number; message?: string };
  resource: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the base endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`). */
  url: string;
  requests: { path: string; headers: IncomingHttpHeaders; body: Buffer }[];
  /** Every span of the JSON requests so far. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpReceiver['requests'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      const json = String(request.headers['content-type']).includes('json');
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      response.end(json ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () =>
      requests
        .filter((request) => String(request.headers['content-type']).includes('json'))
        .flatMap((request) => spansOfOtlpJson(JSON.parse(request.body.toString('utf8')))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type OtlpValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
type OtlpAttribute = { key: string; value: OtlpValue };

const attributesOf = (list: OtlpAttribute[] | undefined) =>
  Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue),
    ]),
  ) as Record<string, string | number | boolean>;

/** The spans of an OTLP JSON trace request (or a file `sessions trace` wrote). */
export function spansOfOtlpJson(document: unknown): ReceivedSpan[] {
  const { resourceSpans } = document as {
    resourceSpans: {
      resource?: { attributes?: OtlpAttribute[] };
      scopeSpans: {
        spans: (Omit<ReceivedSpan, 'attributes' | 'links' | 'resource'> & {
          attributes?: OtlpAttribute[];
          links?: { traceId: string; spanId: string; attributes?: OtlpAttribute[] }[];
        })[];
      }[];
    }[];
  };
  return resourceSpans.flatMap((resourceSpan) =>
    resourceSpan.scopeSpans.flatMap((scope) =>
      scope.spans.map((span) => ({
        ...span,
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((link) => ({ ...link, attributes: attributesOf(link.attributes) })),
        resource: attributesOf(resourceSpan.resource?.attributes),
      })),
    ),
  );
}
