// `@resume/runner/tracing`: OpenTelemetry spans of sessions, built from their journals. A library
// user wraps the store (`tracedStore`) and gets spans in the tracer provider they registered;
// the CLI sends the same records over OTLP and writes them with `conclave sessions trace`.
// Nothing of OpenTelemetry is loaded until a store is traced.
export {
  type JournalSpanOptions,
  JournalSpans,
  runSpanIdOf,
  type SpanAttributes,
  type SpanRecord,
  spansOfJournal,
  traceIdOf,
} from './journal-spans.js';
export { type PromptCopy, promptCopySchema, readPromptCopies } from './prompt-copy.js';
export { storeWith } from './store-with.js';
export { capturesContent, type TracedStoreOptions, tracedStore } from './traced-store.js';
