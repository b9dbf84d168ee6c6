// How a run reaches an MCP server (`mcp.servers.<name>` in the config, docs/mcp.md): a command
// it starts (stdio) or a URL it posts to (streamable HTTP). Values may name environment
// variables (`${GITHUB_TOKEN}`), filled in when the server starts: the config and the journal
// hold the reference, never the secret.
import { ConfigError } from '@resume/core/spec';

export interface McpStdioServerConfig {
  command: string;
  args?: string[];
  /** More environment for the server (values may reference variables: `${NAME}`). */
  env?: Record<string, string>;
  /** Where the server starts (relative paths from the workspace; default the workspace). */
  cwd?: string;
}

export interface McpHttpServerConfig {
  url: string;
  /** Sent with every request (values may reference variables: `Bearer ${GITHUB_TOKEN}`). */
  headers?: Record<string, string>;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

export interface McpSettings {
  servers: Record<string, McpServerConfig>;
  /** Bytes of one tool result the model sees at most (default 64 KiB); the rest is cut with a note. */
  maxOutputBytes?: number;
}

export const DEFAULT_MCP_MAX_OUTPUT_BYTES = 64 * 1024;

/** Lower-case letters, digits, `-` and single `_`: tools are offered as `<server>__<tool>`. */
export const MCP_SERVER_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]|_(?!_))*$/;

/** The separator between a server's name and its tool's in the name a model sees. */
export const MCP_TOOL_SEPARATOR = '__';

export function isStdioServer(config: McpServerConfig): config is McpStdioServerConfig {
  return 'command' in config;
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * A value with its `${NAME}` references filled in from `env`. A variable that is not set is a
 * ConfigError naming the server, the key and the variable.
 */
export function expandReferences(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
  where: { server: string; key: string },
): string {
  return value.replace(REFERENCE, (_match, name: string) => {
    const found = env[name];
    if (found === undefined || found === '')
      throw new ConfigError({
        file: null,
        key: `mcp.servers.${where.server}.${where.key}`,
        problem: `it uses \${${name}}, which is not set in the environment`,
        fix: `Set ${name} in the environment before the run (its value is never written to the config or the journal).`,
      });
    return found;
  });
}

/**
 * Whether a value under a secret-looking key (`Authorization`) only refers to the environment:
 * one or more `${NAME}` references, with at most an auth scheme word (`Bearer ${TOKEN}`).
 */
export function referencesEnvironmentOnly(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const rest = value.replace(REFERENCE, '');
  return rest !== value && /^(?:bearer|basic|token)?$/i.test(rest.trim());
}

/**
 * The variables an HTTP server's headers name: credentials, whatever they are called, so their
 * values are redacted from the journal (a server may echo a header back in a result).
 */
export function headerVariables(config: McpServerConfig): string[] {
  if (isStdioServer(config)) return [];
  const values = Object.values(config.headers ?? {});
  return [...new Set(values.flatMap((value) => [...value.matchAll(REFERENCE)].map((match) => match[1] ?? '')))];
}
