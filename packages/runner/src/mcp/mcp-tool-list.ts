// Each server's tool list as a session records it when the run first reaches the server
// (names, a hash of each input schema, the annotations), and what a resume finds changed.
import { createHash } from 'node:crypto';
import type { JsonValue } from '@resume/core/spec';

/** `data` key of the recorded lists: `{ <server>: RecordedMcpTool[] }`. */
export const MCP_TOOLS_KEY = 'mcp.tools';

export interface RecordedMcpTool {
  name: string;
  /** sha256 of the input schema as canonical JSON (keys sorted). */
  inputSchema: string;
  readOnly: boolean;
  idempotent: boolean;
}

export interface McpToolDescription {
  name: string;
  inputSchema: unknown;
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean } | undefined;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
      .map(([key, item]) => [key, canonical(item)]),
  );
}

export function recordTools(tools: readonly McpToolDescription[]): RecordedMcpTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    inputSchema: `sha256:${createHash('sha256')
      .update(JSON.stringify(canonical(tool.inputSchema)))
      .digest('hex')}`,
    readOnly: tool.annotations?.readOnlyHint === true,
    idempotent: tool.annotations?.idempotentHint === true,
  }));
}

export type RecordedMcpTools = Record<string, RecordedMcpTool[]>;

/** The recorded lists of a session's `data` (empty when none was recorded). */
export function recordedMcpTools(data: Readonly<Record<string, JsonValue>>): RecordedMcpTools {
  const value = data[MCP_TOOLS_KEY];
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as unknown as RecordedMcpTools)
    : {};
}

export interface McpToolChange {
  server: string;
  tool: string;
  change: 'removed' | 'schema-changed';
}

/** Tools of the recorded lists that are gone now or take other input. */
export function changedMcpTools(recorded: RecordedMcpTools, current: RecordedMcpTools): McpToolChange[] {
  const changes: McpToolChange[] = [];
  for (const [server, tools] of Object.entries(recorded)) {
    const now = current[server];
    if (now === undefined) continue;
    for (const tool of tools) {
      const found = now.find((entry) => entry.name === tool.name);
      if (!found) changes.push({ server, tool: tool.name, change: 'removed' });
      else if (found.inputSchema !== tool.inputSchema)
        changes.push({ server, tool: tool.name, change: 'schema-changed' });
    }
  }
  return changes;
}
