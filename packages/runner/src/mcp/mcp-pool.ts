// The MCP servers of one run: each started the first time the run needs it, kept for the rest
// of the run (a resume's plan and its run share them) and stopped when the runner call ends.
// The SDK is loaded here, on first use, so runs without MCP servers never load it.
import type { Session } from '@resume/core';
import { ConfigError, type JsonValue, type StepProcess } from '@resume/core/spec';
import type { ModeTool } from '../modes/mode-context.js';
import { isCommandRunning, stopProcessGroup } from '../processes/process-group.js';
import type { McpConnection } from './mcp-connection.js';
import { DEFAULT_MCP_MAX_OUTPUT_BYTES, type McpSettings } from './mcp-server-config.js';
import { McpServerError } from './mcp-server-error.js';
import { MCP_TOOLS_KEY, type RecordedMcpTools, recordedMcpTools, recordTools } from './mcp-tool-list.js';

export interface McpPool {
  /** The tools of `servers` for a session's run; records each server's tool list in the session. */
  toolsFor(
    servers: readonly string[],
    session: Session,
    workspaceDir: string,
    onNotice?: (text: string) => void,
  ): Promise<ModeTool[]>;
  /** Each server's tool list as it is now, in the recorded shape (for a resume's check). */
  toolLists(servers: readonly string[], workspaceDir: string): Promise<RecordedMcpTools>;
  /** The server that stopped during a call of this run, if one did. */
  readonly failure: McpServerError | null;
  close(): Promise<void>;
}

/** Refuses server names the config does not define, naming the file that asked for them. */
export function checkMcpServers(names: readonly string[], settings: McpSettings | undefined, file: string | null) {
  const configured = Object.keys(settings?.servers ?? {});
  const missing = names.filter((name) => !configured.includes(name));
  if (missing.length === 0) return;
  throw new ConfigError({
    file,
    key: 'mcp',
    problem: `unknown MCP server${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`,
    fix:
      configured.length > 0
        ? `Configured servers: ${configured.join(', ')} (mcp.servers in .conclave.yaml).`
        : 'Define it under mcp.servers in .conclave.yaml (a command to start, or a url).',
  });
}

/** `data` key of the stdio servers' processes, by server: `{ <server>: StepProcess }`. */
const MCP_PROCESSES_KEY = 'mcp.processes';

function recordedProcesses(data: Readonly<Record<string, JsonValue>>): Record<string, StepProcess> {
  const value = data[MCP_PROCESSES_KEY];
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as unknown as Record<string, StepProcess>)
    : {};
}

export function createMcpPool(
  settings: McpSettings | undefined,
  env: Readonly<Record<string, string | undefined>>,
): McpPool {
  const connections = new Map<string, Promise<McpConnection>>();
  let failure: McpServerError | null = null;
  const maxOutputBytes = settings?.maxOutputBytes ?? DEFAULT_MCP_MAX_OUTPUT_BYTES;

  function connect(server: string, workspaceDir: string): Promise<McpConnection> {
    let connection = connections.get(server);
    if (!connection) {
      const config = settings?.servers[server];
      if (!config)
        throw new ConfigError({
          file: null,
          key: `mcp.servers.${server}`,
          problem: `the session uses MCP server "${server}", which the config does not define (any more)`,
          fix: 'Define it again under mcp.servers in .conclave.yaml (a command to start, or a url).',
        });
      connection = import('./mcp-connection.js').then(({ connectMcpServer }) =>
        connectMcpServer(server, config, { env, workspaceDir, version: '1' }),
      );
      // A failed start is not kept: the next runner call tries again.
      connection.catch(() => connections.delete(server));
      connections.set(server, connection);
    }
    return connection;
  }

  return {
    get failure() {
      return failure;
    },
    async toolLists(servers, workspaceDir) {
      const lists: RecordedMcpTools = {};
      for (const server of servers) lists[server] = recordTools((await connect(server, workspaceDir)).tools);
      return lists;
    },
    async toolsFor(servers, session, workspaceDir, onNotice) {
      if (servers.length === 0) return [];
      const { mcpModeTools } = await import('./mcp-tools.js');
      const tools: ModeTool[] = [];
      const recorded = recordedMcpTools(session.state.data);
      const lists: RecordedMcpTools = { ...recorded };
      const leftRunning = recordedProcesses(session.state.data);
      const processes: Record<string, StepProcess> = {};
      for (const server of servers) {
        const connection = await connect(server, workspaceDir);
        const earlier = leftRunning[server];
        if (earlier && earlier.pid !== connection.process?.pid && isCommandRunning(earlier)) {
          // A server a crashed run left behind may still be working on the call it was making:
          // stopped before anything is called again, so that call cannot land after a decision about it.
          const stoppedWith = await stopProcessGroup(earlier.processGroup);
          onNotice?.(
            `MCP server ${server}: stopped the process the interrupted run left running (pid ${earlier.pid}${stoppedWith ? `, ${stoppedWith}` : ''}).`,
          );
        }
        if (connection.process) processes[server] = connection.process;
        lists[server] = recordTools(connection.tools);
        tools.push(
          ...mcpModeTools(
            {
              server,
              tools: connection.tools,
              async callTool(name, args, signal) {
                try {
                  return await connection.callTool(name, args, signal);
                } catch (error) {
                  if (!McpServerError.isInstance(error)) throw error;
                  // The call's outcome is unknown: the run stops here and the step stays uncertain
                  // (not failed), so a resume decides about it as about any interrupted call.
                  failure ??= error;
                  await session.interrupt(`MCP server ${server} stopped`);
                  throw error;
                }
              },
            },
            maxOutputBytes,
          ),
        );
      }
      if (JSON.stringify(lists) !== JSON.stringify(recorded))
        session.record({ type: 'data-set', key: MCP_TOOLS_KEY, value: lists as never });
      if (Object.keys(processes).length > 0)
        session.record({ type: 'data-set', key: MCP_PROCESSES_KEY, value: { ...leftRunning, ...processes } as never });
      await session.flush();
      return tools;
    },
    async close() {
      const open = [...connections.values()];
      connections.clear();
      await Promise.all(open.map((connection) => connection.then((opened) => opened.close()).catch(() => undefined)));
    },
  };
}
