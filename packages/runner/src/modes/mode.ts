// A mode: one object that says how a kind of run starts, runs, resumes and continues, and
// how it describes itself. The runner knows modes only through this interface and finds
// them by name in a ModeRegistry, so a new mode is one object and one registration.
import type { SessionState } from '@resume/core';
import type { EventInput, JsonValue } from '@resume/core/spec';
import type { z } from 'zod';
import type { CheckCompatibilityInput } from '../resume/compatibility.js';
import type { AgentSpec } from './agent-spec.js';
import type { ModeContext, ModeResult, ModeTool } from './mode-context.js';

/** What a session records under `run`: the mode's name and whatever the mode needs to run again. */
export interface ModeConfig {
  mode: string;
  [key: string]: unknown;
}

/** An agent as a caller names it: at least a name; the rest comes from the mode's defaults. */
export type AgentInput = Partial<AgentSpec> & { name: string };

/** A run from a task (`runner.start`, `conclave "task" --mode <name>`). */
export interface TaskStartInput {
  from: 'task';
  task: string;
  agents?: AgentInput[];
  judge?: AgentInput;
  /** The caller's start options; every mode reads the ones its `optionsSchema` declares. */
  options: Record<string, unknown>;
}

/** A run from a file (`runner.runWorkflow`, `conclave run <file>`). */
export interface FileStartInput {
  from: 'file';
  /** As the caller gave it (workspace-relative or absolute). */
  filePath: string;
  text: string;
  /** `--var` values. */
  variables: Record<string, string>;
}

export type ModeStartInput = TaskStartInput | FileStartInput;

/** What the runner offers a mode while it sets up a run (before any session exists). */
export interface ModeSetup {
  /**
   * Reads a file the run needs (relative paths from the workspace): a regular file within the size
   * its kind allows (1 MiB, 64 MiB for a project file); anything else is a typed error naming it.
   */
  readFile(filePath: string, kind?: 'workflow' | 'prompt' | 'project'): Promise<string>;
  /** The hash journaled with a spec text (`sha256:...`). */
  hashText(text: string): string;
  /** Refuses tool names the runner cannot offer, naming the file that asked for them (null: the command line). */
  checkTools(names: string[], file: string | null): void;
  /** Refuses MCP server names the config does not define, naming the file that asked for them. */
  checkMcpServers(names: string[], file: string | null): void;
  /** Where the run works (workflow items files and globs are read from it). */
  workspaceDir: string;
  /** The most items a map step may run at once (`limits.maxParallel`). */
  maxParallel: number;
}

export interface ModeStart<Config extends ModeConfig> {
  config: Config;
  /**
   * Events journaled when the session is created. For a task run the runner adds the task
   * message before them and the task's `spec-recorded` after them; a file run records
   * everything it needs itself (its spec text, variables, the task message).
   */
  events: EventInput[];
  /** The session title when the caller gives none (default: the task's first line, or the file name). */
  title?: string;
  /** The run asks for a git worktree of its own (a workflow's `worktree: true`). */
  worktree?: boolean;
}

/** What a mode gets while it runs: the ModeContext, plus the recorded specs and the run's tools. */
export interface ModeRunContext extends ModeContext {
  /** The latest text the session recorded for a spec kind (an adopted edit included). */
  recordedSpec(kind: 'workflow' | 'prompt' | 'project'): Promise<string>;
  /** The tools the run offers its models: the ones named, or all of them when none are. */
  tools(names: string[], file: string | null): ModeTool[];
  /**
   * The tools of these MCP servers (`<server>__<tool>`), each server started once for the run;
   * its tool list is recorded in the session. Rejects with McpServerError when one cannot start.
   */
  mcpTools(servers: string[], file: string | null): Promise<ModeTool[]>;
}

/** Resume and continue options a mode may apply to its recorded config. */
export interface RunOverrides {
  /**
   * `--models a,b`. On a resume: other models for the same agents (by position). On a
   * follow-up (`newSession`): one agent per model, as on a new run.
   */
  models?: string[];
  /** The overrides start a new session (a follow-up), whose agents follow `models` one per model. */
  newSession?: boolean;
  forceConsensus?: boolean;
  maxRounds?: number;
  startChunk?: number;
}

/** Model calls a resume can still make, as the mode counts them (for the cost estimate). */
export interface RemainingCalls {
  /** Calls still to make, or null when the mode cannot tell. */
  calls: number | null;
  /** Whether `calls` is an upper bound (a discussion may reach consensus sooner). */
  atMost: boolean;
}

/** How many of a session's steps whose key matches `pattern` completed. */
export function completedStepCount(state: SessionState, pattern: RegExp): number {
  return state.steps.filter((step) => step.status === 'completed' && pattern.test(step.key)).length;
}

/** A mode that runs a spec file the user may edit between a stop and a resume. */
export interface ModeSpecFile<Config extends ModeConfig> {
  kind: 'workflow' | 'prompt';
  /** The spec file as recorded in the config (null: none, e.g. an imported session). */
  path(config: Config): string | null;
  /**
   * Checks an edited spec text (`--use-edited-spec`) before anything is written, throwing a
   * typed error naming the file and key; returns the config it implies (null: unchanged).
   */
  adoptEdited(text: string, config: Config, setup: ModeSetup): Promise<Config | null>;
}

/**
 * A start option as the command line takes it: the CLI adds one flag per option its modes
 * declare (the first mode to declare an option names its flag) and passes the value on in the
 * start options. `value`: `count` is a whole number of at least 1 (`--max-rounds <n>`), `text`
 * any text (`--project <file>`), `switch` no value (`--force-consensus`).
 */
export interface ModeFlag {
  /** The option's key in `optionsSchema`. */
  option: string;
  /** As `--help` shows it: `--max-rounds <n>`. */
  flags: string;
  description: string;
  value: 'count' | 'text' | 'switch';
}

export interface Mode<Config extends ModeConfig = ModeConfig> {
  /** The registered name: lower-case words joined by hyphens; journaled as the session's mode. */
  readonly name: string;
  /** One line for `--help` and the docs. */
  readonly description: string;
  /** How a run of this mode begins: from a task, or from a file this mode recognises. */
  readonly startsFrom: { kind: 'task' } | { kind: 'file'; matches(filePath: string): boolean; describe: string };
  /** The start options this mode reads (validated before any session exists; other keys are ignored). */
  readonly optionsSchema?: z.ZodType<Record<string, unknown>>;
  /** The start options a user gives on the command line, each a flag (see `ModeFlag`). */
  readonly commandLine?: readonly ModeFlag[];
  /** The recorded run config; every resume validates it again (the header is a boundary). */
  readonly configSchema: z.ZodType<Config>;
  /** What the mode's numbered passes are called in live output ("chunk 3", "step 2"); default `round`. */
  readonly roundUnit?: RoundUnit;
  /** False when a run reads and writes no files, so a resume does not need its workspace. */
  readonly usesWorkspace: boolean;
  /** A spec file the run follows, recorded at the start (see `--use-edited-spec`). */
  readonly spec?: ModeSpecFile<Config>;

  /** Plans a new run: the config to record and the first events. Throws typed errors on bad input. */
  start(input: ModeStartInput, setup: ModeSetup): Promise<ModeStart<Config>>;
  /** Runs (or, on a reopened session, replays and goes on with) the run to its conclusion. */
  run(context: ModeRunContext, config: Config): Promise<ModeResult>;
  /**
   * Starts loading the modules `run` imports, without waiting for them: a resume calls it as soon
   * as it knows the mode, so they load while it reads, checks and opens the session (its waits on
   * the disk) rather than after. Never fails: `run`'s own import reports a module that cannot load.
   */
  preload?(): void;
  /** "What runs next" in the mode's own words, for the resume plan ("round 3 of 4, agent critic"). */
  describeNext(state: SessionState, config: Config): string;
  /** The config a resume or a continue runs with (default: unchanged). */
  applyOverrides?(config: Config, overrides: RunOverrides): Config;
  /**
   * Modes that work in chunks: refuses `--start-chunk` for a chunk that already ran or does not
   * exist (typed usage errors). Without it, the mode refuses `--start-chunk` altogether.
   */
  checkStartChunk?(state: SessionState, config: Config, startChunk: number): void;
  /** Swaps every agent (a model no longer offered, replaced in the resume prompt). */
  mapAgents?(config: Config, swap: (agent: AgentSpec) => AgentSpec): Config;
  /** The model calls left from `state` (spec: the spec text that will run, if the mode has one). */
  remainingCalls?(state: SessionState, config: Config, spec: string | null): RemainingCalls | Promise<RemainingCalls>;
  /** Steps that started and will not run again: the run passes over their part (a chunk before `--start-chunk`). */
  skipsStep?(state: SessionState, config: Config, stepKey: string): boolean;
  /** What the compatibility check needs to know about how this run keys its steps. */
  compatibility?(config: Config): Pick<CheckCompatibilityInput, 'stepKeys'>;
  /** The tools a resume will offer, for the availability check (edited: the edited spec's text). */
  requestedTools?(config: Config, edited: string | null): string[] | Promise<string[]>;
  /** What a follow-up (`--continue`) runs as: this mode or another registered one. */
  followUp(config: Config, task: string, parent: SessionState): ModeConfig;
}

/** What a mode's numbered passes are called: discussion rounds, the chunks of a document, a workflow's steps. */
export type RoundUnit = 'round' | 'chunk' | 'step';

/** Types a mode object against its config (a helper for `const myMode = defineMode({...})`). */
export function defineMode<Config extends ModeConfig>(mode: Mode<Config>): Mode<Config> {
  return mode;
}

/** A run config as JSON for the session header. */
export function modeConfigAsJson(config: ModeConfig): JsonValue {
  return JSON.parse(JSON.stringify(config)) as JsonValue;
}
