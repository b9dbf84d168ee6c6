import { ConclaveError, type ConclaveErrorOptions, type LeaseHolderInfo } from '@resume/core/spec';

/**
 * A run could not save to its thread because another process runs the thread: it holds the
 * thread's run lease now (`holder`), or it saved checkpoints after this run read the thread
 * (`checkpointId`, the newest of them). Nothing of either run is lost: this run's write was
 * refused before anything of it was stored.
 */
export class ThreadBusyError extends ConclaveError {
  static override readonly code = 'langgraph-thread-busy';
  readonly sessionId: string;
  readonly threadId: string;
  /** The process running the thread now, when one holds its lease. */
  readonly holder: LeaseHolderInfo | null;
  /** The newest checkpoint the other run saved since this run read the thread. */
  readonly checkpointId: string | null;

  constructor(
    details: {
      sessionId: string;
      threadId: string;
      holder?: LeaseHolderInfo;
      checkpointId?: string;
      /** What was refused (default: this run's checkpoint was not saved). */
      refused?: string;
    },
    options: ConclaveErrorOptions = {},
  ) {
    const thread = `LangGraph thread ${JSON.stringify(details.threadId)} (session ${details.sessionId})`;
    const why = details.holder
      ? `is being run by pid ${details.holder.pid} on host ${details.holder.host} since ${details.holder.since}`
      : details.checkpointId
        ? `was continued by another process (checkpoint ${details.checkpointId}) after this run read it`
        : 'is being created by another process';
    const refused = details.refused ?? "this run's checkpoint was not saved";
    super(ThreadBusyError.code, `${thread} ${why}: ${refused}.`, {
      hint:
        options.hint ??
        'Invoke the graph again on the same thread_id once the other run has stopped (at an interrupt or its end): it continues from the latest checkpoint.',
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.name = 'ThreadBusyError';
    this.sessionId = details.sessionId;
    this.threadId = details.threadId;
    this.holder = details.holder ?? null;
    this.checkpointId = details.checkpointId ?? null;
  }
}
