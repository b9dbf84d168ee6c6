// A real MCP server for the tests (the SDK's McpServer): run as a script it serves over stdio;
// `serveHttp()` serves the same tools over streamable HTTP. Its tools work in its cwd:
// - `lookup` (readOnlyHint): answers `found <key>` and appends the key to lookups.log;
// - `append` (no hints: unsafe): appends `text` as a line to ledger.txt;
// - `slow_append` (unsafe): writes slow-started.txt, waits until a file `release` exists, then appends;
// - `slow_lookup` (readOnlyHint): like `lookup`, once a file `release` exists;
// - `echo_auth` (readOnlyHint): answers the credential of the Authorization header it got (over HTTP);
// - `big` (readOnlyHint): answers `bytes` characters.
// TEST_MCP_VARIANT=changed: `lookup` is gone and `append` takes another input.
import { appendFileSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

// Written whole or not at all: a reader never sees the file empty.
const markStarted = (target) => {
  writeFileSync(`${target}.tmp`, `${process.pid}\n`);
  renameSync(`${target}.tmp`, target);
};

const text = (value) => ({ content: [{ type: 'text', text: value }] });

export function createTestServer(directory = process.cwd(), variant = process.env.TEST_MCP_VARIANT) {
  const server = new McpServer({ name: 'test-server', version: '1.0.0' });
  const file = (name) => path.join(directory, name);
  if (variant !== 'changed') {
    server.registerTool(
      'lookup',
      { description: 'Look a key up', inputSchema: { key: z.string() }, annotations: { readOnlyHint: true } },
      async ({ key }) => {
        appendFileSync(file('lookups.log'), `${key}\n`);
        return text(`found ${key}`);
      },
    );
  }
  server.registerTool(
    'append',
    {
      description: 'Append a line to the ledger',
      inputSchema: variant === 'changed' ? { line: z.string(), times: z.number() } : { text: z.string() },
    },
    async (args) => {
      appendFileSync(file('ledger.txt'), `${args.text ?? args.line}\n`);
      return text(`appended ${args.text ?? args.line}`);
    },
  );
  server.registerTool(
    'slow_append',
    { description: 'Append a line once released', inputSchema: { text: z.string() } },
    async ({ text: line }) => {
      markStarted(file('slow-started.txt'));
      while (!existsSync(file('release'))) await new Promise((resolve) => setTimeout(resolve, 20));
      appendFileSync(file('ledger.txt'), `${line}\n`);
      return text(`appended ${line} slowly`);
    },
  );
  server.registerTool(
    'slow_lookup',
    {
      description: 'Look a key up once released',
      inputSchema: { key: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ key }) => {
      markStarted(file('slow-started.txt'));
      while (!existsSync(file('release'))) await new Promise((resolve) => setTimeout(resolve, 20));
      appendFileSync(file('lookups.log'), `${key}\n`);
      return text(`found ${key} slowly`);
    },
  );
  server.registerTool(
    'echo_auth',
    { description: 'The credential the request carried', annotations: { readOnlyHint: true } },
    async (extra) => {
      const credential = String(extra.requestInfo?.headers?.authorization ?? 'none').replace(/^Bearer /, '');
      return text(`you are ${credential}`);
    },
  );
  server.registerTool(
    'big',
    { description: 'A long answer', inputSchema: { bytes: z.number() }, annotations: { readOnlyHint: true } },
    async ({ bytes }) => text('x'.repeat(bytes)),
  );
  return server;
}

/** Serves the tools over streamable HTTP (stateless) on a free port; `headers` sees each request's headers. */
export async function serveHttp(directory, { onHeaders } = {}) {
  const http = createServer(async (request, response) => {
    onHeaders?.(request.headers);
    const server = createTestServer(directory);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(resolve);
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await createTestServer().connect(new StdioServerTransport());
}
