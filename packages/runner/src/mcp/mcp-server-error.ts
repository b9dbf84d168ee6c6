import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';

export type McpServerFailure = 'start' | 'died';

/**
 * An MCP server a run uses could not be started or reached, or stopped answering during the
 * run. Nothing the run did is lost: the session resumes once the server is back.
 */
export class McpServerError extends ConclaveError {
  static override readonly code = 'mcp-server-unavailable';
  readonly server: string;
  readonly failure: McpServerFailure;
  constructor(server: string, failure: McpServerFailure, message: string, options: ConclaveErrorOptions = {}) {
    super(McpServerError.code, message, {
      hint: `Check the server (mcp.servers.${server} in the config), then resume the session: completed tool calls are not made again.`,
      ...options,
    });
    this.name = 'McpServerError';
    this.server = server;
    this.failure = failure;
  }
}
