// A local HTTP server for provider adapter tests: answers each request with a scripted reply
// (JSON, an SSE stream that can be cut or left hanging, or an error status) and records what
// the adapter sent, so tests check both directions of the real wire format without a network.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body text. */
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON); tests assert its shape. */
  body: unknown;
}

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
  /** Server-sent events: each entry is one event's full text (`event: x\ndata: {...}`) without the blank line. */
  events?: string[];
  /** After this many events, destroy the connection (a stream cut mid-way). */
  cutAfter?: number;
  /** After this many events, stop sending but keep the connection open (until the client gives up). */
  hangAfter?: number;
}

export type FakeHandler = (request: RecordedRequest, index: number) => FakeReply | Promise<FakeReply>;

export interface FakeHttpServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

async function sendEvents(response: ServerResponse, reply: FakeReply, events: string[]) {
  response.writeHead(reply.status ?? 200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    ...reply.headers,
  });
  for (const [index, event] of events.entries()) {
    if (reply.cutAfter !== undefined && index >= reply.cutAfter) {
      response.socket?.destroy();
      return;
    }
    if (reply.hangAfter !== undefined && index >= reply.hangAfter) return;
    response.write(`${event}\n\n`);
    // Separate writes so the client sees the stream arrive in pieces.
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (reply.cutAfter !== undefined && reply.cutAfter >= events.length) {
    response.socket?.destroy();
    return;
  }
  response.end();
}

/** Starts a server on 127.0.0.1 with a free port. */
export async function startFakeHttpServer(handler: FakeHandler): Promise<FakeHttpServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request: RecordedRequest = {
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        headers: incoming.headers,
        text,
        body: parseJson(text),
      };
      const index = requests.length;
      requests.push(request);
      Promise.resolve(handler(request, index))
        .then(async (reply) => {
          if (reply.events) return sendEvents(response, reply, reply.events);
          response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
          response.end(reply.json === undefined ? '' : JSON.stringify(reply.json));
        })
        .catch((error: unknown) => {
          response.writeHead(599, { 'content-type': 'text/plain' });
          response.end(`fake server handler failed: ${String(error)}`);
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Formats a server-sent event: `sse({ a: 1 })` → `data: {"a":1}`, `sse(x, 'message_start')` adds the event name. */
export function sse(data: unknown, event?: string): string {
  const line = `data: ${typeof data === 'string' ? data : JSON.stringify(data)}`;
  return event === undefined ? line : `event: ${event}\n${line}`;
}
