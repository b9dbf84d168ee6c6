// `conclave mcp`: the sessions as an MCP server over stdio, for another agent (Claude Code, an
// IDE) to list, read and plan them, and with --allow-runs answer and continue them. Each tool
// call runs the CLI's own command in this process with its output captured, so a tool says
// exactly what the command prints and refuses what the command refuses (an error becomes an
// MCP tool error with the CLI's text).
import type { CliEnvironment } from '../context/cli-context.js';
import { type ProgressRequest, reportProgress } from './mcp-progress.js';
import { type ConclaveTool, conclaveTools } from './mcp-tools.js';

export interface ServeMcpOptions {
  allowRuns: boolean;
  /** Global options every tool's command gets (`--home`, `--store`…), as typed. */
  globalArgs: string[];
  /** Runs one command line with the given environment (the CLI's own entry, handed in to keep imports downward). */
  runCli(argv: readonly string[], environment: CliEnvironment): Promise<number>;
}

/** What the SDK hands a tool's handler besides its input: the client's progress token and cancellation. */
type ToolRequest = ProgressRequest & { signal: AbortSignal };

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

export async function serveMcp(environment: CliEnvironment, options: ServeMcpOptions): Promise<number> {
  const [{ McpServer }, { StdioServerTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const { runCli } = options;
  const interrupts = new Set<(signal: 'SIGINT' | 'SIGTERM') => void>();
  const inFlight = new Set<Promise<Captured>>();
  const run = (command: ReturnType<ConclaveTool['command']>, request: ToolRequest): Promise<Captured> => {
    const progress = reportProgress(request);
    const call = runCommand(command, request.signal, progress.onAppended).finally(() => {
      progress.stop();
      inFlight.delete(call);
    });
    inFlight.add(call);
    return call;
  };
  const runCommand = async (
    { options: words, args }: ReturnType<ConclaveTool['command']>,
    cancelled: AbortSignal,
    onAppended: CliEnvironment['onAppended'],
  ): Promise<Captured> => {
    let stdout = '';
    let stderr = '';
    const argv = [...words, ...options.globalArgs, '--no-color', '--', ...args];
    const code = await runCli(argv, {
      ...environment,
      streams: {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: (text: string) => (stderr += text) },
      },
      interactive: false,
      // A run started by a tool stops cleanly (journaled as interrupted) when the server is
      // stopped or the client cancels the call (its own timeout, for one).
      onSignal(handler) {
        const cancel = () => handler('SIGTERM');
        interrupts.add(handler);
        cancelled.addEventListener('abort', cancel, { once: true });
        if (cancelled.aborted) queueMicrotask(cancel);
        return () => {
          interrupts.delete(handler);
          cancelled.removeEventListener('abort', cancel);
        };
      },
      exitNow: (exitCode) => {
        throw new Error(`The command asked to exit at once (${exitCode}).`);
      },
      ...(onAppended ? { onAppended } : {}),
    });
    return { code, stdout, stderr };
  };

  const server = new McpServer(
    { name: 'conclave', title: 'Conclave sessions', version: environment.version },
    {
      instructions: options.allowRuns
        ? 'Conclave keeps durable AI agent sessions. List them, read their transcripts, plan a resume, answer a session that waits for a person, and continue a completed one with a follow-up.'
        : 'Conclave keeps durable AI agent sessions. List them, read their transcripts and plan a resume. This server is read-only: answering and continuing sessions need `conclave mcp --allow-runs`.',
    },
  );
  for (const tool of conclaveTools) {
    if (tool.writes && !options.allowRuns) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.annotations.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: tool.annotations,
      },
      async (input: Record<string, unknown>, request) =>
        toolResult(tool, await run(tool.command(input as never), request as ToolRequest)),
    );
  }

  const transport = new StdioServerTransport(process.stdin, process.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  const stopRuns = environment.onSignal((signal) => {
    for (const interrupt of interrupts) interrupt(signal);
    void server.close();
  });
  try {
    await server.connect(transport);
    environment.streams.stderr.write(
      `conclave mcp: serving the sessions over stdio (${options.allowRuns ? 'runs allowed' : 'read-only'}).\n`,
    );
    await closed;
  } finally {
    stopRuns();
    // The client went away: a follow-up still running stops at a checkpoint, resumable.
    for (const interrupt of interrupts) interrupt('SIGTERM');
    await Promise.allSettled(inFlight);
    await server.close().catch(() => undefined);
  }
  return 0;
}

function toolResult(tool: ConclaveTool, result: Captured) {
  if (result.code !== 0) {
    // The CLI's own message (what happened, which session, what to do next), with its exit code.
    const text = (result.stderr.trim() || result.stdout.trim() || `conclave exited ${result.code}`).replace(
      /^Error: /,
      '',
    );
    return { isError: true, content: [{ type: 'text' as const, text: `${text}\n(exit code ${result.code})` }] };
  }
  const text = tool.name === 'resume_plan' || result.stdout.trim() ? result.stdout : result.stderr;
  return { content: [{ type: 'text' as const, text: text.trim() }] };
}
