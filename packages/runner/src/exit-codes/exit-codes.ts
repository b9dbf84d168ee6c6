// What the front ends (`conclave`, `conclave-tui`) exit with: the one table from an error's stable
// `code` to a process exit code (docs/cli.md#exit-codes). The packages throw errors with codes and
// know nothing of exit codes, since a library never exits; this module is for the programs that do.
// It imports only `@resume/core/spec`, which the front ends load anyway, so it costs no start-up time.
import { ConclaveError, ProviderError, type ProviderErrorReason } from '@resume/core/spec';

/** Exit codes, sysexits-style (binding, docs/architecture.md#the-cli). */
export const ExitCode = {
  success: 0,
  failed: 1,
  usage: 64,
  corrupted: 65,
  notFound: 66,
  unavailable: 69,
  /** The disk holding the store is full (or over quota); nothing acknowledged was lost (sysexits EX_IOERR). */
  storeFull: 74,
  inUse: 75,
  /** The operating system refused access to a file or folder (sysexits EX_NOPERM). */
  noPermission: 77,
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An exit code, or how to read it from the error when errors of one code exit differently. */
export type ExitCodeRule = ExitCode | ((error: ConclaveError) => ExitCode);

const providerExitCodes: Record<ProviderErrorReason, ExitCode> = {
  authentication: ExitCode.unavailable,
  'model-not-found': ExitCode.unavailable,
  'rate-limit': ExitCode.unavailable,
  overloaded: ExitCode.unavailable,
  'bad-request': ExitCode.failed,
  network: ExitCode.unavailable,
  aborted: ExitCode.interrupted,
  unavailable: ExitCode.unavailable,
};

/** A step (or a group of steps) that failed for good exits as its last failure did: a refused API key stays 69. */
const asItsCause = (error: ConclaveError): ExitCode =>
  ConclaveError.isInstance(error.cause) ? exitCodeFor(error.cause) : ExitCode.failed;

/**
 * Every error code the packages throw, with its exit code. A code missing here exits 1; the
 * test next to the CLI's error report fails for an exported error class without an entry.
 */
export const exitCodes: Readonly<Record<string, ExitCodeRule>> = {
  // @resume/core
  'append-conflict': ExitCode.inUse,
  'config-invalid': ExitCode.usage,
  'encryption-key-unavailable': ExitCode.unavailable,
  'file-not-found': ExitCode.notFound,
  'input-rejected': ExitCode.usage,
  interrupted: ExitCode.interrupted,
  'journal-corrupted': ExitCode.corrupted,
  'lease-lost': ExitCode.inUse,
  'permission-denied': ExitCode.noPermission,
  'provider-error': (error) =>
    ProviderError.isInstance(error) ? providerExitCodes[error.reason] : ExitCode.unavailable,
  'recovery-limit': ExitCode.failed,
  'replay-mismatch': ExitCode.corrupted,
  'session-deleted': ExitCode.notFound,
  'session-exists': ExitCode.usage,
  'session-finished': ExitCode.usage,
  'session-incompatible': ExitCode.corrupted,
  'session-locked': ExitCode.inUse,
  'session-name-taken': ExitCode.usage,
  'session-not-found': ExitCode.notFound,
  'step-aborted': ExitCode.failed,
  'step-failed': asItsCause,
  'step-output-not-json': ExitCode.failed,
  'step-uncertain': ExitCode.usage,
  'store-full': ExitCode.storeFull,
  'store-quota': ExitCode.storeFull,
  'store-io': ExitCode.failed,
  'format-unsupported': ExitCode.corrupted,
  usage: ExitCode.usage,
  'waiting-for-input': ExitCode.success,
  // @resume/runner
  'cost-limit': ExitCode.interrupted,
  'git-failed': ExitCode.failed,
  'map-items-failed': ExitCode.failed,
  'map-items-queued': ExitCode.interrupted,
  'map-no-items': ExitCode.failed,
  'mcp-server-unavailable': ExitCode.unavailable,
  'parallel-group-failed': asItsCause,
  'scored-step-failed': ExitCode.failed,
  'shell-command-failed': ExitCode.failed,
  'step-timed-out': ExitCode.failed,
  'unknown-mode': ExitCode.usage,
  'workspace-access': ExitCode.usage,
  'workspace-tool': ExitCode.usage,
  'worktree-refused': ExitCode.corrupted,
  // @resume/ai-sdk
  'prompt-changed': ExitCode.corrupted,
  // @resume/langgraph
  'checkpoint-data': ExitCode.corrupted,
  'langgraph-config': ExitCode.usage,
  'langgraph-thread-busy': ExitCode.inUse,
  // conclave (the CLI)
  'signature-required': ExitCode.corrupted,
};

/** The exit code for an error: its code's entry in the table; 1 for an unknown code or anything that is no Conclave error. */
export function exitCodeFor(error: unknown): ExitCode {
  if (!ConclaveError.isInstance(error)) return ExitCode.failed;
  const rule = Object.hasOwn(exitCodes, error.code) ? exitCodes[error.code] : undefined;
  if (rule === undefined) return ExitCode.failed;
  return typeof rule === 'function' ? rule(error) : rule;
}
