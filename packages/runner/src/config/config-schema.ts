// The Conclave config file format (docs/architecture.md#config): `.conclave.yaml` in the workspace and
// `$CONCLAVE_HOME/config.yaml`. Strict objects, so a misspelt key is an error that names
// it instead of a setting silently ignored. Secrets never live here: keys come from the
// environment, and a key that looks like one is refused with a message saying so.
//
// The schemas are built the first time a config file is validated (see lazy-schema.ts):
// most runs find no config file and should not pay for building them.

import { lazySchema, once } from '@resume/core/lazy-schema';
import { z } from 'zod';
import { MCP_SERVER_NAME_PATTERN, type McpServerConfig } from '../mcp/mcp-server-config.js';
import { BYTE_SIZE_FORM, parseByteSize } from './byte-size.js';

/**
 * A provider's name (`scripted`, `openai`, `anthropic`, or one a front end registers): the
 * shape is checked here, whether it is known where providers are looked up.
 */
export const providerNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/, 'a provider name is lower-case letters, digits and single hyphens');
export type ProviderName = z.infer<typeof providerNameSchema>;

// Built together the first time one of them is used.
const buildConfigSchemas = once(() => {
  const agentConfigSchema = z.strictObject({
    // Names become file names (iterative notes) and speaker labels: plain names only.
    name: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/,
        'is not a plain name: use letters, digits, spaces, "_", "-" or "." (no "/" or leading "."), at most 64 characters',
      )
      .refine((name) => !name.includes('..'), 'must not contain ".."'),
    model: z.string().min(1).optional(),
    provider: providerNameSchema.optional(),
    /** The agent's system prompt (its role in the discussion). */
    system: z.string().optional(),
  });

  const judgeConfigSchema = z.strictObject({
    model: z.string().min(1).optional(),
    provider: providerNameSchema.optional(),
    system: z.string().optional(),
  });

  // Each provider's section is checked by the schema its factory declares (parse-config-text.ts).
  const providersConfigSchema = z.record(providerNameSchema, z.record(z.string(), z.unknown()));

  const checkpointConfigSchema = z.strictObject({
    /** Write a fold snapshot every N events so opening a long session stays fast. */
    snapshotEvery: z.number().int().positive().optional(),
    /** Discussions and iterative runs label a checkpoint every N rounds / chunks (every turn stays durable). */
    interval: z.number().int().positive().optional(),
  });

  const resumeConfigSchema = z.strictObject({
    resetDiscussion: z.boolean().optional(),
    forceConsensus: z.boolean().optional(),
    /** What to do with files changed since the session touched them when nobody is asked. */
    onConflict: z.enum(['keep', 'restore', 'cancel']).optional(),
    /** What to do with an unsafe step that started but never finished when nobody is asked. */
    onUncertain: z.enum(['rerun', 'skip', 'abort']).optional(),
    /**
     * Crashes in a row at the same place without progress (a poison step) after which a
     * session is no longer resumed without --force. Clean interrupts never count.
     */
    maxRecoveries: z.number().int().positive().optional(),
  });

  const retentionConfigSchema = z.strictObject({
    /** Sessions not updated for this many days are removed. */
    maxAgeDays: z.number().positive().optional(),
    /** Only the newest N sessions are kept. */
    maxSessions: z.number().int().positive().optional(),
    /** Older sessions are removed once the newest ones add up to this many bytes. */
    maxBytes: z.number().int().positive().optional(),
    /** The newest N sessions are never removed, whatever the other limits say. */
    minKeep: z.number().int().nonnegative().optional(),
    /** Also remove interrupted (resumable) sessions; running ones are never removed. */
    includeInterrupted: z.boolean().optional(),
    /** Apply the policy automatically after each run (otherwise only `sessions cleanup`). */
    automatic: z.boolean().optional(),
  });

  const archiveConfigSchema = z.strictObject({
    /** Finished sessions not updated for this many days are compressed (gzip); reads stay transparent. */
    afterDays: z.number().positive().optional(),
  });

  const trashConfigSchema = z.strictObject({
    /** Days a deleted session stays in the trash (restorable) before retention deletes it for good. */
    keepDays: z.number().positive().optional(),
  });

  const discussionConfigSchema = z.strictObject({
    maxRounds: z.number().int().positive().optional(),
  });

  const toolsConfigSchema = z.strictObject({
    /** First words `run_command` accepts in orchestrated runs (`npm`, `git`...); none: no shell tool. */
    allowCommands: z.array(z.string().min(1)).optional(),
  });

  // Values may name environment variables (`${GITHUB_TOKEN}`), filled in when the server starts.
  const mcpStdioServerSchema = z.strictObject({
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: z.record(z.string().min(1), z.string()).optional(),
    cwd: z.string().min(1).optional(),
  });
  const mcpHttpServerSchema = z.strictObject({
    url: z.string().regex(/^https?:\/\//, 'an http:// or https:// URL'),
    headers: z.record(z.string().min(1), z.string()).optional(),
  });
  const mcpConfigSchema = z.strictObject({
    /** By name (`<server>__<tool>` is what models see): a `command` to start (stdio) or a `url` (streamable HTTP). */
    servers: z
      .record(
        z.string(),
        z.union([mcpStdioServerSchema, mcpHttpServerSchema], {
          error: 'a server has either `command` (and `args`, `env`, `cwd`) or `url` (and `headers`)',
        }),
      )
      // Checked here rather than as the record's key schema, whose message zod replaces.
      .superRefine((servers, context) => {
        for (const name of Object.keys(servers))
          if (!MCP_SERVER_NAME_PATTERN.test(name))
            context.addIssue({
              code: 'custom',
              path: [name],
              message:
                'a server name is lower-case letters, digits, "-" and single "_" (tools are named <server>__<tool>)',
            });
      })
      .optional(),
    /** Bytes of one tool result a model sees at most; the rest is cut with a note. */
    maxOutputBytes: z.number().int().min(1024).optional(),
  });

  const usd = z.number().positive('an amount in US dollars greater than 0');
  const byteSize = z.union([z.number(), z.string()]).transform((value, context) => {
    const bytes = parseByteSize(value);
    if (bytes === null) context.addIssue({ code: 'custom', message: `is not ${BYTE_SIZE_FORM}` });
    return bytes ?? 0;
  });
  const limitsConfigSchema = z.strictObject({
    /** A run stops at a checkpoint before a model call that would take the session past this (USD). */
    maxCostUsd: usd.optional(),
    /** The same over the session's lineage (its parents' cost included). */
    maxLineageCostUsd: usd.optional(),
    /** Resuming a session whose lineage cost is above this says so first. */
    warnAboveUsd: usd.optional(),
    /** No new model call once every session's calls today (local time) would pass this (USD). */
    dailyCost: usd.optional(),
    /** The same over the calendar month. */
    monthlyCost: usd.optional(),
    /** The most items a workflow map step may run at once (`parallel:` above it is refused); default 16. */
    maxParallel: z.number().int().min(1).max(256).optional(),
    /** A run stops at a checkpoint before its writes would take the data home past this size. */
    maxHomeBytes: byteSize.optional(),
    /** The same for one session's folder (its journal, snapshots and the rest). */
    maxSessionBytes: byteSize.optional(),
  });

  const importsConfigSchema = z.strictObject({
    /** `sessions import` accepts only bundles signed by this home or a trusted key (as --require-signed). */
    requireSigned: z.boolean().optional(),
  });

  const storeConfigSchema = z.strictObject({
    /** `postgres://...` for a shared store; otherwise the file store in the home. */
    url: z.string().min(1).optional(),
  });

  /** A work queue's settings (docs/workers.md): `maxRunning`, its cap over all workers. */
  const queuesConfigSchema = z.record(
    z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a queue name: letters, digits, ".", "-" and "_"'),
    z.strictObject({ maxRunning: z.number().int().min(1).max(100_000) }),
  );

  const onOff = z.union([z.enum(['on', 'off']), z.boolean().transform((on): 'on' | 'off' => (on ? 'on' : 'off'))]);

  const configFileSchema = z.strictObject({
    /** Data home for this project (a workspace config may move it; `$CONCLAVE_HOME` wins). */
    home: z.string().min(1).optional(),
    store: storeConfigSchema.optional(),
    /**
     * `on`: new sessions are encrypted at rest with the current data key (docs/encryption.md);
     * `off` (the default): written in the clear. Encrypted sessions read either way, given their key.
     */
    encryption: z
      .union([
        onOff,
        /**
         * The object form adds where the key comes from, for a secrets manager: `keyFile` (a file
         * holding the key) or `keyCommand` (a command that prints it); `enabled` is `on`/`off`.
         */
        z.strictObject({
          enabled: onOff.optional(),
          keyFile: z.string().min(1).optional(),
          keyCommand: z.string().min(1).optional(),
        }),
      ])
      .optional(),
    agents: z.array(agentConfigSchema).min(1).optional(),
    judge: judgeConfigSchema.optional(),
    /** The provider used when neither --provider nor a session's record decides (else an API key in the environment). */
    provider: providerNameSchema.optional(),
    /** Settings by provider name (`providers.openai.baseUrl`), each in the shape its provider declares. */
    providers: providersConfigSchema.optional(),
    checkpoint: checkpointConfigSchema.optional(),
    resume: resumeConfigSchema.optional(),
    retention: retentionConfigSchema.optional(),
    archive: archiveConfigSchema.optional(),
    trash: trashConfigSchema.optional(),
    discussion: discussionConfigSchema.optional(),
    tools: toolsConfigSchema.optional(),
    mcp: mcpConfigSchema.optional(),
    limits: limitsConfigSchema.optional(),
    imports: importsConfigSchema.optional(),
    /** Work queues by name (`queues.builds.maxRunning: 2`); workers apply the caps when they start. */
    queues: queuesConfigSchema.optional(),
  });
  return {
    limitsConfigSchema,
    agentConfigSchema,
    judgeConfigSchema,
    providersConfigSchema,
    checkpointConfigSchema,
    resumeConfigSchema,
    retentionConfigSchema,
    archiveConfigSchema,
    trashConfigSchema,
    discussionConfigSchema,
    toolsConfigSchema,
    storeConfigSchema,
    importsConfigSchema,
    configFileSchema,
  };
});

export const agentConfigSchema = lazySchema(() => buildConfigSchemas().agentConfigSchema);
export const judgeConfigSchema = lazySchema(() => buildConfigSchemas().judgeConfigSchema);
export const providersConfigSchema = lazySchema(() => buildConfigSchemas().providersConfigSchema);
export const checkpointConfigSchema = lazySchema(() => buildConfigSchemas().checkpointConfigSchema);
export const resumeConfigSchema = lazySchema(() => buildConfigSchemas().resumeConfigSchema);
export const retentionConfigSchema = lazySchema(() => buildConfigSchemas().retentionConfigSchema);
export const archiveConfigSchema = lazySchema(() => buildConfigSchemas().archiveConfigSchema);
export const discussionConfigSchema = lazySchema(() => buildConfigSchemas().discussionConfigSchema);
export const toolsConfigSchema = lazySchema(() => buildConfigSchemas().toolsConfigSchema);
export const storeConfigSchema = lazySchema(() => buildConfigSchemas().storeConfigSchema);
export const configFileSchema = lazySchema(() => buildConfigSchemas().configFileSchema);

export type AgentConfig = z.infer<typeof agentConfigSchema>;
export type ConfigFile = z.infer<typeof configFileSchema>;

/** The effective configuration: every file merged over the defaults. */
export interface ConclaveConfig {
  home: string;
  store: { url: string | null };
  /** Whether new session data is encrypted at rest. */
  encryption: 'on' | 'off';
  /**
   * Where the data key comes from besides the home's key files (config `encryption.keyFile` and
   * `encryption.keyCommand`; `$CONCLAVE_ENCRYPTION_KEY*` win over them). A relative file is the
   * config file's directory's; the command runs there.
   */
  encryptionKey: { file: string | null; command: string | null };
  agents: AgentConfig[] | null;
  judge: z.infer<typeof judgeConfigSchema>;
  provider: ProviderName | null;
  /** Each provider's settings, by name (only the sections the files set). */
  providers: Record<ProviderName, Record<string, unknown>>;
  checkpoint: { snapshotEvery: number; interval: number };
  resume: {
    maxRecoveries: number;
    resetDiscussion: boolean;
    forceConsensus: boolean;
    onConflict: 'keep' | 'restore' | 'cancel' | null;
    onUncertain: 'rerun' | 'skip' | 'abort' | null;
  };
  retention: {
    maxAgeDays: number | null;
    maxSessions: number | null;
    maxBytes: number | null;
    minKeep: number;
    includeInterrupted: boolean;
    automatic: boolean;
  };
  archive: { afterDays: number | null };
  trash: { keepDays: number };
  discussion: { maxRounds: number };
  tools: { allowCommands: string[] };
  mcp: { servers: Record<string, McpServerConfig>; maxOutputBytes: number };
  limits: {
    maxCostUsd: number | null;
    maxLineageCostUsd: number | null;
    warnAboveUsd: number | null;
    dailyCost: number | null;
    monthlyCost: number | null;
    maxParallel: number;
    /** Bytes, or null: no limit. */
    maxHomeBytes: number | null;
    maxSessionBytes: number | null;
  };
  imports: { requireSigned: boolean };
  /** Work queues by name: the cap over all workers that `conclave worker` sets when it starts. */
  queues: Record<string, { maxRunning: number }>;
}

/** Keys that moved: a file that still uses one gets an error naming the new key. */
export const MOVED_CONFIG_KEYS: ReadonlyArray<{ from: string[]; to: string; what: string }> = [
  {
    from: ['checkpoint', 'maxRecoveries'],
    to: 'resume.maxRecoveries',
    what: 'crashes in a row without progress before a session is no longer resumed without --force',
  },
  {
    from: ['providers', 'default'],
    to: 'provider',
    what: 'the provider used when neither --provider nor a session decides; providers holds only settings by provider name',
  },
];

/** Keys that would hold secrets: refused wherever they appear, with the variable to use instead. */
export const SECRET_KEY_PATTERN = /^(api[-_]?key|apikey|token|secret|password|authorization|auth[-_]?token)$/i;
