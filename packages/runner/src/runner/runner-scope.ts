// What every part of the runner shares: the caller's options, the engine, where run events
// go, how spec files are read, and the session being driven (so `interrupt` can reach it).
import path from 'node:path';
import type { Engine, Session, SessionState } from '@resume/core';
import { FileNotFoundError, IncompatibleSessionError } from '@resume/core/spec';
import { readUserFile, USER_FILE_LIMITS, type UserFileOptions } from '../files/user-file.js';
import { createMcpPool, type McpPool } from '../mcp/mcp-pool.js';
import { builtinModes } from '../modes/builtin-modes.js';
import type { ModeRegistry } from '../modes/mode-registry.js';
import { rememberRecordedDocument } from '../workflow/spec-document.js';
import type { RunEvent } from './run-event.js';
import type { RunnerOptions } from './runner-types.js';

export interface RunnerScope {
  options: RunnerOptions;
  engine: Engine;
  modes: ModeRegistry;
  emit: (event: RunEvent) => void;
  /** Reads a file a run starts from, as the kind of file `file` says (a caller's own reader ignores it). */
  readTextFile: (filePath: string, file?: UserFileOptions) => Promise<string>;
  /** A path as the workspace sees it (relative paths from `workspaceDir`, default the runner's). */
  resolvePath: (filePath: string, workspaceDir?: string) => string;
  /** The session being driven now and an interrupt asked for before it could be reached. */
  live: { current: Session | null; interruptRequested: string | null };
  /** The MCP servers started by the runner call under way (null until one is needed). */
  mcp: McpPool | null;
}

export function createRunnerScope(options: RunnerOptions): RunnerScope {
  return {
    options,
    engine: options.engine,
    modes: options.modes ?? builtinModes,
    emit: (event) => options.onEvent?.(event),
    // Read directly (decision 0018): the run waits for the file before anything else, and a read
    // through the thread pool is four round trips (open, stat, read, close).
    readTextFile: options.readTextFile ?? (async (filePath, file = inputFile()) => readUserFile(filePath, file)),
    resolvePath: (filePath, workspaceDir = options.workspaceDir) => path.resolve(workspaceDir, filePath),
    live: { current: null, interruptRequested: null },
    mcp: null,
  };
}

/** The MCP servers of the runner call under way, started as they are first needed. */
export function mcpPool(scope: RunnerScope): McpPool {
  scope.mcp ??= createMcpPool(scope.options.mcp, scope.options.env ?? {});
  return scope.mcp;
}

/** Runs one runner call; the MCP servers it started are stopped when it ends, however it ends. */
export async function withMcpServers<T>(scope: RunnerScope, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    const pool = scope.mcp;
    scope.mcp = null;
    await pool?.close();
  }
}

/**
 * What a file a run reads is, for its messages and its size limit: specs and prompt files are
 * written by hand (1 MiB at most, like a file of a kind not given), a project file is data.
 */
export function inputFile(kind?: 'workflow' | 'prompt' | 'project'): UserFileOptions {
  if (kind === 'project') return { what: 'project file', maxBytes: USER_FILE_LIMITS.data };
  const what = kind === 'workflow' ? 'workflow spec' : kind === 'prompt' ? 'prompt file' : 'file';
  return { what, maxBytes: USER_FILE_LIMITS.text };
}

/** Reads a file a run starts from; a missing one is a typed error naming where it was looked for. */
export async function readInput(scope: RunnerScope, filePath: string, file = inputFile()): Promise<string> {
  try {
    return await scope.readTextFile(scope.resolvePath(filePath), file);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT' || FileNotFoundError.isInstance(error)) {
      throw new FileNotFoundError(filePath, `File not found: ${filePath} (looked in ${scope.options.workspaceDir}).`, {
        hint: 'Check the path; relative paths are read from the workspace directory.',
      });
    }
    throw error;
  }
}

/** The latest text a session recorded for a spec kind (inline or as a blob). */
export async function recordedSpecText(
  scope: RunnerScope,
  state: SessionState,
  kind: 'workflow' | 'prompt' | 'project',
): Promise<string> {
  const spec = [...state.specs].reverse().find((entry) => entry.kind === kind);
  let text: string | undefined = spec?.content;
  if (text === undefined && spec?.blob) {
    const content = await scope.engine.store.getBlob(spec.blob);
    if (content) text = Buffer.from(content).toString('utf8');
  }
  if (spec && text !== undefined) {
    rememberRecordedDocument(text, spec.hash, spec.document);
    return text;
  }
  throw new IncompatibleSessionError(state.header.id, [`its recorded ${kind} text is missing from the store`]);
}
