// An MCP server's tools as tools a model may call (`<server>__<tool>`): each call is a durable
// step of the orchestrated loop, idempotent when the server annotates the tool `readOnlyHint`
// or `idempotentHint` (re-run after a crash), unsafe otherwise (re-run only when the user says
// so). What the model sees is capped at `maxOutputBytes`, the cut said in the result.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { StepSafety } from '@resume/core/spec';
import type { ModeTool } from '../modes/mode-context.js';
import { MCP_TOOL_SEPARATOR } from './mcp-server-config.js';

/** The name a model sees: `<server>__<tool>`, in the characters every provider accepts. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}${MCP_TOOL_SEPARATOR}${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

export function mcpToolSafety(tool: Pick<Tool, 'annotations'>): StepSafety {
  return tool.annotations?.readOnlyHint === true || tool.annotations?.idempotentHint === true ? 'idempotent' : 'unsafe';
}

/** A tool result as text: text parts as they are, structured content as JSON, other parts described. */
export function resultText(result: CallToolResult): string {
  const parts = result.content.map((part) => {
    switch (part.type) {
      case 'text':
        return part.text;
      case 'image':
      case 'audio':
        return `[${part.type} ${part.mimeType}, ${Math.floor((part.data.length * 3) / 4)} bytes]`;
      case 'resource_link':
        return `[resource ${part.uri}${part.name ? ` (${part.name})` : ''}]`;
      case 'resource':
        return 'text' in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`;
      default:
        return '';
    }
  });
  if (parts.every((part) => part === '') && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent);
  return parts.filter(Boolean).join('\n');
}

/** Cuts `text` to `maxBytes` (UTF-8, never inside a character) and says so at the end. */
export function capOutput(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.byteLength <= maxBytes) return text;
  let end = maxBytes;
  // Back to the start of a character: continuation bytes are 10xxxxxx.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return `${bytes.subarray(0, end).toString('utf8')}\n[output cut at ${maxBytes} of ${bytes.byteLength} bytes (mcp.maxOutputBytes)]`;
}

export interface McpToolSource {
  server: string;
  tools: Tool[];
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

export function mcpModeTools(source: McpToolSource, maxOutputBytes: number): ModeTool[] {
  return source.tools.map((tool) => ({
    definition: {
      name: mcpToolName(source.server, tool.name),
      description: [tool.title ?? '', tool.description ?? ''].filter(Boolean).join(': ') || tool.name,
      parameters: tool.inputSchema as Record<string, unknown>,
    },
    safety: mcpToolSafety(tool),
    mcp: { server: source.server, tool: tool.name },
    async execute(args, { signal }) {
      const input = typeof args === 'object' && args !== null && !Array.isArray(args) ? args : {};
      const result = await source.callTool(tool.name, input, signal);
      return { content: capOutput(resultText(result), maxOutputBytes), isError: result.isError === true };
    },
  }));
}
