import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';

/** A LangGraph call whose `config.configurable` lacks what the call needs (a thread_id, a checkpoint_id). */
export class ThreadConfigError extends ConclaveError {
  static override readonly code = 'langgraph-config';
  readonly field: string;

  constructor(operation: string, field: string, options: ConclaveErrorOptions = {}) {
    super(
      ThreadConfigError.code,
      `ResumeCheckpointSaver.${operation}: config.configurable.${field} is missing or not a string.`,
      {
        hint:
          options.hint ??
          (field === 'thread_id'
            ? 'Pass the thread to run: graph.invoke(input, { configurable: { thread_id: "my-thread" } })'
            : `Pass the config returned by put(), which carries ${field}.`),
        ...(options.cause === undefined ? {} : { cause: options.cause }),
      },
    );
    this.name = 'ThreadConfigError';
    this.field = field;
  }
}
