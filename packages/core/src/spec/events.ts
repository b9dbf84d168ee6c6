// The journal's event model (format version 1). The journal is the only source of
// truth: state, summaries, indexes and snapshots are all derived from these events.
// The schemas are built on first use (see lazy-schema.ts): a listing reads summaries,
// never events, and should not pay for building them when the module loads.
import { z } from 'zod';
import { checkedSafeParser, lazySchema, once } from '../lazy-schema.js';
import { sessionIdSchema } from './ids.js';
import { checkJournalEvent } from './journal-event-check.generated.js';

/** The journal format this code writes. Older versions are migrated on read; newer ones are refused. */
export const JOURNAL_FORMAT_VERSION = 1;

/**
 * How a session runs: the name of a mode registered with the runner (`discussion`, `chain`...),
 * or `custom` for a program's own sessions. The journal accepts any name of this shape, so a
 * new mode needs no change here; what a name means is the runner's business.
 */
export const SESSION_MODE_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
export const sessionModeSchema = z
  .string()
  .max(64)
  .regex(SESSION_MODE_PATTERN, 'a mode name is lower-case letters, digits and single hyphens (e.g. "code-review")');
export type SessionMode = z.infer<typeof sessionModeSchema>;

/**
 * `waiting`: the run stopped for a person's answer (`session.waitFor`); see docs/human-input.md.
 * `sleeping`: the run sleeps until a time (`session.sleep`), in its process or, when that
 * process ended, until whoever recovers it (`engine.recover`) wakes it.
 */
export const sessionStatusSchema = z.enum(['running', 'interrupted', 'waiting', 'sleeping', 'completed', 'failed']);
export type SessionStatus = z.infer<typeof sessionStatusSchema>;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

const buildJsonValueSchema = once(() => {
  const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
    z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
  );
  return jsonValue;
});
export const jsonValueSchema: z.ZodType<JsonValue> = lazySchema(buildJsonValueSchema);

// Every other schema of the journal, built together the first time one of them is used.
const buildEventSchemas = once(() => {
  const jsonValueSchema = buildJsonValueSchema();

  const gitStateSchema = z.object({ branch: z.string().nullable(), head: z.string().nullable() });

  const sessionHeaderSchema = z.object({
    id: sessionIdSchema,
    title: z.string(),
    mode: sessionModeSchema,
    workspaceDir: z.string().nullable(),
    createdAt: z.string(),
    parentId: sessionIdSchema.nullable(),
    /** For a branch: the parent's checkpoint seq this session starts from. */
    branchPoint: z.number().int().nonnegative().nullable(),
    /** Hash of the workflow spec / prompt / task the session runs, for compatibility checks. */
    specHash: z.string().nullable(),
    formatVersion: z.number().int().positive(),
    /** Provider, models, script and other run options (never secrets). */
    options: z.record(z.string(), jsonValueSchema),
    git: gitStateSchema.nullable(),
  });

  const messageRoleSchema = z.enum(['system', 'user', 'assistant', 'tool']);

  const toolCallSchema = z.object({ id: z.string(), name: z.string(), args: jsonValueSchema });

  const messageSchema = z.object({
    role: messageRoleSchema,
    content: z.string(),
    /** The agent that spoke (multi-agent transcripts), or the user's name. */
    speaker: z.string().nullable().default(null),
    round: z.number().int().nonnegative().nullable().default(null),
    toolCalls: z.array(toolCallSchema).optional(),
    toolCallId: z.string().optional(),
    /** Free-form tags a mode uses to find its messages again (e.g. `judge`, `resume-message`). */
    tags: z.array(z.string()).optional(),
  });

  const stepSafetySchema = z.enum(['idempotent', 'unsafe']);

  const errorInfoSchema = z.object({
    name: z.string(),
    message: z.string(),
    code: z.string().nullable().default(null),
    retryable: z.boolean().default(false),
  });

  /** The step whose function wrote this event (it belongs to that step, not to the code around it). */
  const stepScopeSchema = z.object({ key: z.string().min(1), occurrence: z.number().int().positive() });

  const base = { seq: z.number().int().positive(), at: z.string(), within: stepScopeSchema.optional() };

  const sessionCreatedEventSchema = z.object({
    ...base,
    type: z.literal('session-created'),
    header: sessionHeaderSchema,
    /**
     * How many events after this one were written with it as the session's set-up (a task
     * message, a recorded spec): they are not operations of the session's code, so an ordered
     * replay does not expect the code to ask for them again. Absent in older journals: none.
     */
    setup: z.number().int().nonnegative().optional(),
    /**
     * A branch: how many events after this one are copies of the parent's journal up to the
     * branch point (its usage is the parent's, not this session's). Absent: none.
     */
    copied: z.number().int().nonnegative().optional(),
  });
  const messageAddedEventSchema = z.object({ ...base, type: z.literal('message-added'), message: messageSchema });
  /** A process an attempt started (a shell step's command): enough to find it again, and not a later one with its pid. */
  const stepProcessSchema = z.object({
    pid: z.number().int().positive(),
    /** The process group it leads (the command and everything it started). */
    processGroup: z.number().int().positive(),
    /** When it started (Linux: /proc/<pid>/stat field 22, in clock ticks since boot); null where unknown. */
    startTime: z.string().nullable(),
    host: z.string(),
    bootId: z.string().nullable(),
  });
  const stepStartedEventSchema = z.object({
    ...base,
    type: z.literal('step-started'),
    key: z.string().min(1),
    occurrence: z.number().int().positive(),
    attempt: z.number().int().positive(),
    safety: stepSafetySchema,
    idempotencyKey: z.string(),
    /** The concurrent branch the step runs in (a parallel group member, a map item); absent: the main line. */
    branch: z.string().min(1).optional(),
    /** The process this attempt runs its command in, started and held until this event was durable. */
    process: stepProcessSchema.optional(),
    /**
     * An earlier attempt's command that was still running when this attempt was chosen to run
     * (the process that ran it had died), stopped first: the signal that ended it and how long it had run.
     */
    stoppedProcess: stepProcessSchema
      .extend({ signal: z.enum(['SIGTERM', 'SIGKILL']), ranForMs: z.number().int().nonnegative().nullable() })
      .optional(),
  });
  const stepCompletedEventSchema = z.object({
    ...base,
    type: z.literal('step-completed'),
    key: z.string().min(1),
    occurrence: z.number().int().positive(),
    attempt: z.number().int().positive(),
    /** The recorded output, or null when it was stored as a blob (see outputBlob). */
    output: jsonValueSchema.optional(),
    outputBlob: z.string().optional(),
  });
  const stepFailedEventSchema = z.object({
    ...base,
    type: z.literal('step-failed'),
    key: z.string().min(1),
    occurrence: z.number().int().positive(),
    attempt: z.number().int().positive(),
    error: errorInfoSchema,
    /** Whether another attempt follows (the retry policy allowed it). */
    willRetry: z.boolean(),
  });
  const stepSkippedEventSchema = z.object({
    ...base,
    type: z.literal('step-skipped'),
    key: z.string().min(1),
    occurrence: z.number().int().positive(),
    reason: z.string(),
    output: jsonValueSchema.optional(),
  });
  const toolCallStartedEventSchema = z.object({
    ...base,
    type: z.literal('tool-call-started'),
    callId: z.string(),
    name: z.string(),
    args: jsonValueSchema,
    stepKey: z.string().nullable().default(null),
  });
  const toolCallCompletedEventSchema = z.object({
    ...base,
    type: z.literal('tool-call-completed'),
    callId: z.string(),
    name: z.string(),
    result: jsonValueSchema,
    isError: z.boolean().default(false),
  });
  const variablesSetEventSchema = z.object({
    ...base,
    type: z.literal('variables-set'),
    variables: z.record(z.string(), jsonValueSchema),
  });
  const fileSnapshotTakenEventSchema = z.object({
    ...base,
    type: z.literal('file-snapshot-taken'),
    /** Path relative to the workspace, with forward slashes. */
    path: z.string(),
    /** sha256 of the content, or null when the file did not exist. */
    hash: z.string().nullable(),
    size: z.number().int().nonnegative(),
    /** Blob holding the content (same as hash for content-addressed stores). */
    blob: z.string().nullable(),
    access: z.enum(['read', 'write']),
  });
  /**
   * A version of a workspace file the session keeps so it can be given back: the user's
   * content that a conflict "restore" replaced with the snapshot. Its blob is referenced here,
   * so it is exported with the session and kept as long as the session is.
   */
  const fileVersionSavedEventSchema = z.object({
    ...base,
    type: z.literal('file-version-saved'),
    /** Path relative to the workspace, with forward slashes. */
    path: z.string(),
    hash: z.string(),
    size: z.number().int().nonnegative(),
    blob: z.string(),
    /** Why it was saved: `replaced-by-restore` (a conflict restore wrote the snapshot over it). */
    reason: z.enum(['replaced-by-restore']),
  });
  const usageRecordedEventSchema = z.object({
    ...base,
    type: z.literal('usage-recorded'),
    provider: z.string(),
    model: z.string(),
    agent: z.string().nullable().default(null),
    round: z.number().int().nonnegative().nullable().default(null),
    stepKey: z.string().nullable().default(null),
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    /** Cost in USD from the price table; null when the model's price is unknown (never a guess). */
    costUsd: z.number().nonnegative().nullable(),
    /**
     * The blob (its sha256) holding what the call was given, its system prompt and messages as
     * JSON; kept only when prompts are captured for traces (the runner's `capturePrompts`).
     */
    promptBlob: z.string().optional(),
  });
  const checkpointMarkedEventSchema = z.object({
    ...base,
    type: z.literal('checkpoint-marked'),
    label: z.string().nullable(),
  });
  const statusChangedEventSchema = z.object({
    ...base,
    type: z.literal('status-changed'),
    status: sessionStatusSchema,
    reason: z.string().nullable().default(null),
    error: errorInfoSchema.nullable().default(null),
    /** `sleeping`: when the session wakes (ISO time). */
    wakeAt: z.string().optional(),
  });
  const sessionResumedEventSchema = z.object({
    ...base,
    type: z.literal('session-resumed'),
    /** How many times this session has been resumed after an interruption, this one included. */
    recovery: z.number().int().positive(),
    pid: z.number().int(),
    host: z.string(),
    /**
     * Whether the previous writer died (the journal still said `running`) rather than stopping
     * cleanly (interrupted, failed). Only crashes count toward the recovery limit. Absent in
     * older journals: taken as a crash.
     */
    crashed: z.boolean().optional(),
  });
  const dataSetEventSchema = z.object({
    ...base,
    type: z.literal('data-set'),
    /** Mode-specific state (round, chunk, notes, shared output...), last write wins per key. */
    key: z.string().min(1),
    value: jsonValueSchema,
  });
  const specRecordedEventSchema = z.object({
    ...base,
    type: z.literal('spec-recorded'),
    kind: z.enum(['task', 'workflow', 'prompt', 'project']),
    path: z.string().nullable(),
    hash: z.string(),
    /** Blob holding the spec's text. */
    blob: z.string().nullable(),
    content: z.string().optional(),
    /**
     * The data the text's YAML holds, when it is plain JSON, with the hash of its JSON: a
     * resume of the recorded text validates this instead of parsing the YAML again. Absent
     * in sessions recorded before it and for texts that are not YAML data.
     * `validated`: the spec as validating that data gave it, written by the builds of decision
     * 0019 (superseded); no longer written, and a resume validates the data instead.
     */
    document: z
      .object({
        data: jsonValueSchema,
        hash: z.string(),
        validated: z.object({ spec: z.string(), rules: z.string(), hash: z.string() }).optional(),
      })
      .optional(),
  });
  const titleChangedEventSchema = z.object({ ...base, type: z.literal('title-changed'), title: z.string() });
  /**
   * How a person organizes the session (`conclave sessions rename`, `tag`, `pin`, `archive`): each
   * field given is the new value (`tags` the whole new list), a field left out is unchanged.
   * Journaled, so it travels with the session through every store, export and import.
   */
  const metadataChangedEventSchema = z.object({
    ...base,
    type: z.literal('metadata-changed'),
    /** The session's unique name in its home (null: the name is removed). */
    name: z.string().nullable().optional(),
    tags: z.array(z.string()).optional(),
    pinned: z.boolean().optional(),
    /** Archived sessions are left out of listings unless asked for. */
    archived: z.boolean().optional(),
    /** In the trash: left out of listings, deleted for good once the trash is emptied. */
    trashed: z.boolean().optional(),
  });
  /** `session.waitFor(key, ...)`: the code asks a person; the session waits until it is answered. */
  const inputRequestedEventSchema = z.object({
    ...base,
    type: z.literal('input-requested'),
    key: z.string().min(1),
    occurrence: z.number().int().positive(),
    /** The question, as shown to whoever answers. */
    prompt: z.string(),
    /** JSON Schema of the expected answer (from the code's schema), so another process can check an answer. */
    schema: jsonValueSchema.nullable().default(null),
  });
  /** The answer (`engine.respond`), with who gave it; the event's `at` says when. */
  const inputReceivedEventSchema = z.object({
    ...base,
    type: z.literal('input-received'),
    key: z.string().min(1),
    occurrence: z.number().int().positive(),
    value: jsonValueSchema,
    answeredBy: z.string().nullable().default(null),
  });
  /**
   * A graph framework's checkpoint (a LangGraph.js checkpoint saved by `@resume/langgraph`).
   * The engine reads only the identifying fields; `data` belongs to the integration that wrote
   * it (its own versioned format: the checkpoint, its metadata and the channel values that
   * changed). The fold counts it as progress.
   */
  const graphCheckpointSavedEventSchema = z.object({
    ...base,
    type: z.literal('graph-checkpoint-saved'),
    /** The checkpoint namespace ('' for the root graph, a subgraph's path otherwise). */
    namespace: z.string(),
    checkpointId: z.string().min(1),
    /** The checkpoint this one follows, or null for a thread's first one. */
    parentCheckpointId: z.string().min(1).nullable(),
    data: jsonValueSchema,
  });
  /** Writes a graph task made after a checkpoint (its pending writes), `data` as above. */
  const graphWritesSavedEventSchema = z.object({
    ...base,
    type: z.literal('graph-writes-saved'),
    namespace: z.string(),
    checkpointId: z.string().min(1),
    taskId: z.string(),
    data: jsonValueSchema,
  });

  const journalEventSchema = z.discriminatedUnion('type', [
    sessionCreatedEventSchema,
    messageAddedEventSchema,
    stepStartedEventSchema,
    stepCompletedEventSchema,
    stepFailedEventSchema,
    stepSkippedEventSchema,
    toolCallStartedEventSchema,
    toolCallCompletedEventSchema,
    variablesSetEventSchema,
    fileSnapshotTakenEventSchema,
    fileVersionSavedEventSchema,
    usageRecordedEventSchema,
    checkpointMarkedEventSchema,
    statusChangedEventSchema,
    sessionResumedEventSchema,
    dataSetEventSchema,
    specRecordedEventSchema,
    titleChangedEventSchema,
    metadataChangedEventSchema,
    inputRequestedEventSchema,
    inputReceivedEventSchema,
    graphCheckpointSavedEventSchema,
    graphWritesSavedEventSchema,
  ]);
  return {
    gitStateSchema,
    sessionHeaderSchema,
    messageRoleSchema,
    toolCallSchema,
    messageSchema,
    stepSafetySchema,
    errorInfoSchema,
    sessionCreatedEventSchema,
    messageAddedEventSchema,
    stepStartedEventSchema,
    stepCompletedEventSchema,
    stepFailedEventSchema,
    stepSkippedEventSchema,
    toolCallStartedEventSchema,
    toolCallCompletedEventSchema,
    variablesSetEventSchema,
    fileSnapshotTakenEventSchema,
    fileVersionSavedEventSchema,
    usageRecordedEventSchema,
    checkpointMarkedEventSchema,
    statusChangedEventSchema,
    sessionResumedEventSchema,
    dataSetEventSchema,
    specRecordedEventSchema,
    titleChangedEventSchema,
    metadataChangedEventSchema,
    inputRequestedEventSchema,
    inputReceivedEventSchema,
    graphCheckpointSavedEventSchema,
    graphWritesSavedEventSchema,
    journalEventSchema,
    stepScopeSchema,
  };
});

export const gitStateSchema = lazySchema(() => buildEventSchemas().gitStateSchema);
export const sessionHeaderSchema = lazySchema(() => buildEventSchemas().sessionHeaderSchema);
export const messageRoleSchema = lazySchema(() => buildEventSchemas().messageRoleSchema);
export const toolCallSchema = lazySchema(() => buildEventSchemas().toolCallSchema);
export const messageSchema = lazySchema(() => buildEventSchemas().messageSchema);
/** Marks a parent's messages copied into a continued session, so the child can tell them from its own. */
export const PARENT_HISTORY_TAG = 'parent-history';

export const stepSafetySchema = lazySchema(() => buildEventSchemas().stepSafetySchema);
export const errorInfoSchema = lazySchema(() => buildEventSchemas().errorInfoSchema);
export const sessionCreatedEventSchema = lazySchema(() => buildEventSchemas().sessionCreatedEventSchema);
export const messageAddedEventSchema = lazySchema(() => buildEventSchemas().messageAddedEventSchema);
export const stepStartedEventSchema = lazySchema(() => buildEventSchemas().stepStartedEventSchema);
export type StepProcess = NonNullable<z.infer<typeof stepStartedEventSchema>['process']>;
export type StoppedStepProcess = NonNullable<z.infer<typeof stepStartedEventSchema>['stoppedProcess']>;
export const stepCompletedEventSchema = lazySchema(() => buildEventSchemas().stepCompletedEventSchema);
export const stepFailedEventSchema = lazySchema(() => buildEventSchemas().stepFailedEventSchema);
export const stepSkippedEventSchema = lazySchema(() => buildEventSchemas().stepSkippedEventSchema);
export const toolCallStartedEventSchema = lazySchema(() => buildEventSchemas().toolCallStartedEventSchema);
export const toolCallCompletedEventSchema = lazySchema(() => buildEventSchemas().toolCallCompletedEventSchema);
export const variablesSetEventSchema = lazySchema(() => buildEventSchemas().variablesSetEventSchema);
export const fileSnapshotTakenEventSchema = lazySchema(() => buildEventSchemas().fileSnapshotTakenEventSchema);
export const fileVersionSavedEventSchema = lazySchema(() => buildEventSchemas().fileVersionSavedEventSchema);
export const usageRecordedEventSchema = lazySchema(() => buildEventSchemas().usageRecordedEventSchema);
export const checkpointMarkedEventSchema = lazySchema(() => buildEventSchemas().checkpointMarkedEventSchema);
export const statusChangedEventSchema = lazySchema(() => buildEventSchemas().statusChangedEventSchema);
export const sessionResumedEventSchema = lazySchema(() => buildEventSchemas().sessionResumedEventSchema);
export const dataSetEventSchema = lazySchema(() => buildEventSchemas().dataSetEventSchema);
export const specRecordedEventSchema = lazySchema(() => buildEventSchemas().specRecordedEventSchema);
export const titleChangedEventSchema = lazySchema(() => buildEventSchemas().titleChangedEventSchema);
export const metadataChangedEventSchema = lazySchema(() => buildEventSchemas().metadataChangedEventSchema);
export const inputRequestedEventSchema = lazySchema(() => buildEventSchemas().inputRequestedEventSchema);
export const inputReceivedEventSchema = lazySchema(() => buildEventSchemas().inputReceivedEventSchema);
export const graphCheckpointSavedEventSchema = lazySchema(() => buildEventSchemas().graphCheckpointSavedEventSchema);
export const graphWritesSavedEventSchema = lazySchema(() => buildEventSchemas().graphWritesSavedEventSchema);
export const journalEventSchema = lazySchema(() => buildEventSchemas().journalEventSchema);
/**
 * `journalEventSchema.parse`, answered by the check generated from the schema when it can
 * (journal-event-check.generated.ts, scripts/generate-checks.mjs): the same result, and the same
 * ZodError for invalid input, which only zod sees. A valid event builds no schema.
 */
export function parseJournalEvent(value: unknown): JournalEvent {
  return (checkJournalEvent(value) as JournalEvent | undefined) ?? journalEventSchema.parse(value);
}

/** `journalEventSchema.safeParse`, answered by the same generated check when it can. */
export const safeParseJournalEvent: (
  value: unknown,
) => { success: true; data: JournalEvent } | { success: false; error: z.ZodError<unknown> } = checkedSafeParser(
  journalEventSchema,
  checkJournalEvent,
);
export const stepScopeSchema = lazySchema(() => buildEventSchemas().stepScopeSchema);

export type GitState = z.infer<typeof gitStateSchema>;
export type SessionHeader = z.infer<typeof sessionHeaderSchema>;
export type MessageRole = z.infer<typeof messageRoleSchema>;
export type ToolCall = z.infer<typeof toolCallSchema>;
export type Message = z.infer<typeof messageSchema>;
export type MessageInput = z.input<typeof messageSchema>;
export type StepSafety = z.infer<typeof stepSafetySchema>;
export type ErrorInfo = z.infer<typeof errorInfoSchema>;
/** A step, named by key and occurrence: the scope events written by its function carry. */
export type StepScope = z.infer<typeof stepScopeSchema>;
export type JournalEvent = z.infer<typeof journalEventSchema>;
export type JournalEventType = JournalEvent['type'];
export type JournalEventOf<T extends JournalEventType> = Extract<JournalEvent, { type: T }>;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event before the engine numbers and stamps it. */
export type EventInput = DistributiveOmit<z.input<typeof journalEventSchema>, 'seq' | 'at' | 'within'>;
