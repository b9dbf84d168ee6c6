// The orchestrated mode's tools (docs/architecture.md#workflow-specs-and-shell-steps): `read_file`, `write_file`, `list_files` and
// `run_command`, confined to one workspace directory. Each has a JSON schema for the model
// and a safety for the durable step that wraps it: reads are idempotent, writes and
// commands are unsafe (not re-run silently after a crash). Each execution reports the files
// it touched so the runner can snapshot them.
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { lazySchema } from '@resume/core/lazy-schema';
import type { JsonValue, StepSafety, ToolDefinition } from '@resume/core/spec';
import { z } from 'zod';
import { writeFileAtomically } from '../files/file-conflicts.js';
import { WorkspaceAccessError } from '../files/workspace-access-error.js';
import { realWorkspaceRoot, resolveWorkspacePath } from '../files/workspace-path.js';
import { splitCommandLine } from './command-line.js';
import { runCommand } from './run-command.js';
import { WorkspaceToolError } from './workspace-tool-error.js';

export type WorkspaceToolName = 'read_file' | 'write_file' | 'list_files' | 'run_command';

export interface WorkspaceToolsOptions {
  root: string;
  /** First words `run_command` accepts (`npm`, `node`, `pytest`…). Without any, `run_command` is not offered. */
  allowCommands?: readonly string[];
  /** Environment of commands (default: PATH, HOME, LANG and TMPDIR of this process only, so no secrets leak). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Per command (default 120 s). */
  timeoutMs?: number;
  /** Bytes of stdout and of stderr kept, from the end (default 8 KiB). */
  maxOutputBytes?: number;
  /** Bytes `read_file` returns at most (default 256 KiB). */
  maxReadBytes?: number;
  /** Entries `list_files` returns at most (default 1000). */
  maxListEntries?: number;
}

export interface TouchedFile {
  /** Workspace-relative, forward slashes. */
  path: string;
  access: 'read' | 'write';
}

export interface WorkspaceToolExecution {
  /** What the model sees as the tool's result. */
  result: JsonValue;
  /** Files read or written: the runner snapshots them. */
  files: TouchedFile[];
}

export interface WorkspaceTools {
  /** The workspace root (absolute). */
  readonly root: string;
  readonly definitions: ToolDefinition[];
  readonly names: WorkspaceToolName[];
  /** Safety of the durable step that wraps a call; unknown tools are unsafe. */
  safetyOf(name: string): StepSafety;
  /** Throws WorkspaceToolError (bad call), WorkspaceAccessError (path refused) or InterruptedError. */
  execute(name: string, args: unknown, options?: { signal?: AbortSignal }): Promise<WorkspaceToolExecution>;
}

export const workspaceToolSafety: Readonly<Record<WorkspaceToolName, StepSafety>> = {
  read_file: 'idempotent',
  list_files: 'idempotent',
  write_file: 'unsafe',
  run_command: 'unsafe',
};

// Built on first use: most runs call no workspace tool.
const readFileArgumentsSchema = lazySchema(() => z.object({ path: z.string().min(1) }));
const writeFileArgumentsSchema = lazySchema(() => z.object({ path: z.string().min(1), content: z.string() }));
const listFilesArgumentsSchema = lazySchema(() =>
  z.object({
    path: z.string().min(1).default('.'),
    recursive: z.boolean().default(false),
  }),
);
const runCommandArgumentsSchema = lazySchema(() => z.object({ command: z.string().min(1) }));

function definitions(allowCommands: readonly string[]): ToolDefinition[] {
  const list: ToolDefinition[] = [
    {
      name: 'read_file',
      description: 'Read a text file of the workspace. Paths are relative to the workspace root.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', description: 'File path relative to the workspace root' } },
        required: ['path'],
        additionalProperties: false,
      },
    },
    {
      name: 'write_file',
      description: 'Create or replace a text file in the workspace (parent directories are created).',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'File path relative to the workspace root' },
          content: { type: 'string', description: 'The complete new content of the file' },
        },
        required: ['path', 'content'],
        additionalProperties: false,
      },
    },
    {
      name: 'list_files',
      description: 'List the files and directories of a workspace directory.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Directory relative to the workspace root (default ".")' },
          recursive: { type: 'boolean', description: 'Include subdirectories (default false)' },
        },
        additionalProperties: false,
      },
    },
  ];
  if (allowCommands.length > 0) {
    list.push({
      name: 'run_command',
      description: `Run one command in the workspace root, without a shell (no pipes or redirections). Allowed commands: ${allowCommands.join(', ')}.`,
      parameters: {
        type: 'object',
        properties: { command: { type: 'string', description: 'The command line, e.g. "npm test"' } },
        required: ['command'],
        additionalProperties: false,
      },
    });
  }
  return list;
}

function parseArguments<T>(schema: z.ZodType<T>, name: string, args: unknown): T {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
    .join('; ');
  throw new WorkspaceToolError('invalid-arguments', `Invalid arguments for ${name}: ${problems}.`);
}

function isInsideGitDirectory(relative: string): boolean {
  return relative === '.git' || relative.startsWith('.git/');
}

function defaultEnvironment(): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'LANG', 'TMPDIR', 'SystemRoot']) {
    const value = process.env[key];
    if (value !== undefined) environment[key] = value;
  }
  return environment;
}

export function createWorkspaceTools(options: WorkspaceToolsOptions): WorkspaceTools {
  const root = path.resolve(options.root);
  const allowCommands = [...new Set(options.allowCommands ?? [])];
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxOutputBytes = options.maxOutputBytes ?? 8 * 1024;
  const maxReadBytes = options.maxReadBytes ?? 256 * 1024;
  const maxListEntries = options.maxListEntries ?? 1000;
  const environment: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env ?? defaultEnvironment())) {
    if (value !== undefined) environment[key] = value;
  }
  const toolDefinitions = definitions(allowCommands);
  const names = toolDefinitions.map((definition) => definition.name as WorkspaceToolName);

  async function readFileTool(args: unknown): Promise<WorkspaceToolExecution> {
    const { path: requested } = parseArguments(readFileArgumentsSchema, 'read_file', args);
    const resolved = await resolveWorkspacePath(root, requested);
    const stats = resolved.exists ? await lstat(resolved.absolute) : null;
    if (stats === null) {
      throw new WorkspaceAccessError(
        'not-a-file',
        requested,
        `There is no file ${resolved.relative} in the workspace.`,
      );
    }
    if (!stats.isFile()) {
      throw new WorkspaceAccessError('not-a-file', requested, `${resolved.relative} is not a regular file.`);
    }
    const content = await readFile(resolved.absolute);
    const files: TouchedFile[] = [{ path: resolved.relative, access: 'read' }];
    if (content.subarray(0, 8192).includes(0)) {
      return { result: { path: resolved.relative, size: content.byteLength, binary: true, content: '' }, files };
    }
    const truncated = content.byteLength > maxReadBytes;
    const text = (truncated ? content.subarray(0, maxReadBytes) : content).toString('utf8');
    return { result: { path: resolved.relative, size: content.byteLength, truncated, content: text }, files };
  }

  async function writeFileTool(args: unknown): Promise<WorkspaceToolExecution> {
    const { path: requested, content } = parseArguments(writeFileArgumentsSchema, 'write_file', args);
    const resolved = await resolveWorkspacePath(root, requested);
    if (resolved.relative === '.' || isInsideGitDirectory(resolved.relative)) {
      throw new WorkspaceAccessError('not-a-file', requested, `Writing ${resolved.relative} is not allowed.`, {
        hint: 'Write ordinary files of the workspace (not the root itself or .git).',
      });
    }
    if (resolved.exists && !(await lstat(resolved.absolute)).isFile()) {
      throw new WorkspaceAccessError('not-a-file', requested, `${resolved.relative} exists and is not a regular file.`);
    }
    await writeFileAtomically(resolved.absolute, content);
    return {
      result: { path: resolved.relative, bytes: Buffer.byteLength(content, 'utf8'), created: !resolved.exists },
      files: [{ path: resolved.relative, access: 'write' }],
    };
  }

  async function listFilesTool(args: unknown): Promise<WorkspaceToolExecution> {
    const { path: requested, recursive } = parseArguments(listFilesArgumentsSchema, 'list_files', args);
    const resolved = await resolveWorkspacePath(root, requested);
    if (!resolved.exists || !(await lstat(resolved.absolute)).isDirectory()) {
      throw new WorkspaceAccessError(
        'not-a-directory',
        requested,
        `${resolved.relative} is not a directory of the workspace.`,
      );
    }
    const entries: { path: string; type: 'file' | 'directory' | 'symlink' | 'other'; size: number | null }[] = [];
    let truncated = false;
    const queue: string[] = [resolved.absolute];
    while (queue.length > 0 && !truncated) {
      const directory = queue.shift() as string;
      const children = (await readdir(directory, { withFileTypes: true })).sort((left, right) =>
        left.name < right.name ? -1 : left.name > right.name ? 1 : 0,
      );
      for (const child of children) {
        const absolute = path.join(directory, child.name);
        const relative = path.relative(resolved.root, absolute).split(path.sep).join('/');
        if (entries.length >= maxListEntries) {
          truncated = true;
          break;
        }
        // Symlinks are listed, never followed: their targets may be outside the workspace.
        if (child.isSymbolicLink()) entries.push({ path: relative, type: 'symlink', size: null });
        else if (child.isDirectory()) {
          entries.push({ path: relative, type: 'directory', size: null });
          if (recursive && child.name !== '.git' && child.name !== 'node_modules') queue.push(absolute);
        } else if (child.isFile()) entries.push({ path: relative, type: 'file', size: (await lstat(absolute)).size });
        else entries.push({ path: relative, type: 'other', size: null });
      }
    }
    return { result: { path: resolved.relative, entries, truncated }, files: [] };
  }

  async function runCommandTool(args: unknown, signal: AbortSignal | undefined): Promise<WorkspaceToolExecution> {
    const { command } = parseArguments(runCommandArgumentsSchema, 'run_command', args);
    const argv = splitCommandLine(command);
    const first = argv[0];
    if (first === undefined) throw new WorkspaceToolError('invalid-arguments', 'The command is empty.');
    if (!allowCommands.includes(first)) {
      throw new WorkspaceToolError(
        'command-refused',
        `The command "${first}" is not allowed here. Allowed: ${allowCommands.length > 0 ? allowCommands.join(', ') : 'none'}.`,
        { hint: 'Add it to the command allow-list in .conclave.yaml if it should be allowed.' },
      );
    }
    const result = await runCommand({
      argv,
      cwd: await realWorkspaceRoot(root),
      env: environment,
      timeoutMs,
      maxOutputBytes,
      signal,
    });
    return { result: { ...result }, files: [] };
  }

  return {
    root,
    definitions: toolDefinitions,
    names,
    safetyOf(name) {
      return name in workspaceToolSafety ? workspaceToolSafety[name as WorkspaceToolName] : 'unsafe';
    },
    async execute(name, args, executeOptions = {}) {
      switch (name) {
        case 'read_file':
          return readFileTool(args);
        case 'write_file':
          return writeFileTool(args);
        case 'list_files':
          return listFilesTool(args);
        case 'run_command':
          if (names.includes('run_command')) return runCommandTool(args, executeOptions.signal);
          break;
      }
      throw new WorkspaceToolError('unknown-tool', `There is no tool "${name}". Available: ${names.join(', ')}.`);
    },
  };
}
