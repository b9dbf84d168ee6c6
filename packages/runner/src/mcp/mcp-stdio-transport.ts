// The stdio transport for MCP servers the run starts: like the SDK's, but the server runs in a
// process group of its own, so a Ctrl+C meant for `conclave` does not reach it before the run
// has stopped, and stopping it stops whatever it started too (SIGTERM to the group, then SIGKILL).
// Groups still alive when this process exits are killed on the way out.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { stopProcessGroup } from '../processes/process-group.js';

const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killLiveGroupsOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
}

export interface StdioServerParameters {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Told what the server writes to stderr (its log), line by line. */
  onStderr?: (line: string) => void;
}

export class GroupedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #child: ChildProcessWithoutNullStreams | null = null;
  #readBuffer = new ReadBuffer();
  #stderrTail = '';
  readonly #parameters: StdioServerParameters;

  constructor(parameters: StdioServerParameters) {
    this.#parameters = parameters;
  }

  /** The last lines the server wrote to stderr, for error messages. */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.#parameters.command, this.#parameters.args, {
        cwd: this.#parameters.cwd,
        env: this.#parameters.env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      this.#child = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => {
        if (child.pid !== undefined) {
          liveGroups.add(child.pid);
          killLiveGroupsOnExit();
        }
        resolve();
      });
      child.on('close', () => {
        if (child.pid !== undefined) liveGroups.delete(child.pid);
        this.#child = null;
        this.onclose?.();
      });
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => {
        this.#readBuffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.#readBuffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        this.#stderrTail = (this.#stderrTail + text).slice(-2000);
        for (const line of text.split('\n')) if (line.trim()) this.#parameters.onStderr?.(line);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      const stdin = this.#child?.stdin;
      if (!stdin || stdin.destroyed) throw new Error('The MCP server is not running.');
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    child.stdin.end();
    if (child.pid !== undefined) {
      await stopProcessGroup(child.pid);
      liveGroups.delete(child.pid);
    }
    this.#readBuffer.clear();
  }
}
