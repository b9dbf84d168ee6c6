// One connection to an MCP server through the SDK's Client: started once per run, its tool list
// read (every page), tool calls made, closed at the end. Loaded only by runs that use MCP servers.
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { StepProcess } from '@resume/core/spec';
import { processProbe } from '../processes/process-group.js';
import { expandReferences, isStdioServer, type McpServerConfig } from './mcp-server-config.js';
import { McpServerError } from './mcp-server-error.js';
import { GroupedStdioTransport } from './mcp-stdio-transport.js';

/** How long one tool call may take (progress notifications from the server extend it). */
const CALL_TIMEOUT_MS = 30 * 60_000;
/** How long a server gets to start and list its tools. */
const START_TIMEOUT_MS = 30_000;

export interface McpConnection {
  server: string;
  tools: Tool[];
  /** A stdio server's process (its own group), journaled so a later run can stop one a crash left behind. */
  process: StepProcess | null;
  /** Rejects with McpServerError when the server is gone; a tool's own failure is a result with `isError`. */
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  env: Readonly<Record<string, string | undefined>>;
  workspaceDir: string;
  version: string;
}

/** The environment a stdio server starts with: PATH, HOME and the like, plus its own `env`. */
function serverEnvironment(server: string, config: McpServerConfig, env: ConnectOptions['env']) {
  const environment: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'LANG', 'TMPDIR', 'USER', 'SHELL', 'TERM', 'NODE_OPTIONS']) {
    const value = env[key];
    if (value !== undefined) environment[key] = value;
  }
  if (isStdioServer(config))
    for (const [key, value] of Object.entries(config.env ?? {}))
      environment[key] = expandReferences(value, env, { server, key: `env.${key}` });
  return environment;
}

function transportFor(server: string, config: McpServerConfig, options: ConnectOptions): Transport {
  if (isStdioServer(config)) {
    return new GroupedStdioTransport({
      command: expandReferences(config.command, options.env, { server, key: 'command' }),
      args: (config.args ?? []).map((arg, index) =>
        expandReferences(arg, options.env, { server, key: `args.${index}` }),
      ),
      env: serverEnvironment(server, config, options.env),
      cwd: path.resolve(options.workspaceDir, config.cwd ?? '.'),
    });
  }
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(config.headers ?? {}))
    headers[key] = expandReferences(value, options.env, { server, key: `headers.${key}` });
  return new StreamableHTTPClientTransport(new URL(expandReferences(config.url, options.env, { server, key: 'url' })), {
    requestInit: { headers },
  });
}

function describeFailure(error: unknown, transport: Transport): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  const stderr = transport instanceof GroupedStdioTransport ? transport.stderrTail.trim() : '';
  return [cause ? `${message} (${cause})` : message, stderr ? `Its stderr (tail):\n${stderr}` : '']
    .filter(Boolean)
    .join('\n');
}

export async function connectMcpServer(
  server: string,
  config: McpServerConfig,
  options: ConnectOptions,
): Promise<McpConnection> {
  const transport = transportFor(server, config, options);
  const client = new Client({ name: 'conclave', version: options.version });
  let closed = false;
  let lostReason: string | null = null;
  const where = isStdioServer(config) ? `\`${config.command}\`` : config.url;
  try {
    await client.connect(transport, { timeout: START_TIMEOUT_MS });
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: START_TIMEOUT_MS });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    client.onclose = () => {
      if (!closed) lostReason ??= 'it closed the connection';
    };
    const pid = transport instanceof GroupedStdioTransport ? transport.pid : null;
    const probe = processProbe();
    return {
      server,
      tools,
      process:
        pid === null
          ? null
          : { pid, processGroup: pid, startTime: probe.startTime(pid), host: probe.hostname, bootId: probe.bootId },
      async callTool(name, args, signal) {
        if (lostReason !== null)
          throw new McpServerError(server, 'died', `MCP server "${server}" stopped during the run: ${lostReason}.`);
        try {
          return (await client.callTool({ name, arguments: args }, undefined, {
            signal,
            timeout: CALL_TIMEOUT_MS,
            resetTimeoutOnProgress: true,
          })) as CallToolResult;
        } catch (error) {
          if (signal.aborted) throw error;
          // The server answered with an error of its own (bad arguments, unknown tool): the model sees it.
          if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) throw error;
          throw new McpServerError(
            server,
            'died',
            `MCP server "${server}" (${where}) stopped answering during a call of ${name}: ${describeFailure(error, transport)}`,
            { cause: error },
          );
        }
      },
      async close() {
        closed = true;
        await client.close().catch(() => undefined);
        await transport.close().catch(() => undefined);
      },
    };
  } catch (error) {
    closed = true;
    await transport.close().catch(() => undefined);
    if (McpServerError.isInstance(error)) throw error;
    throw new McpServerError(
      server,
      'start',
      `MCP server "${server}" (${where}) could not be started: ${describeFailure(error, transport)}`,
      { cause: error },
    );
  }
}
