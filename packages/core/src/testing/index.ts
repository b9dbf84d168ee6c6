// `@resume/core/testing`: the store conformance suite, an in-memory store, mock models and
// builders for the records a store is handed.

export type { TestFunctions } from './assertions.js';
export { type ConformanceFixture, type ConformanceOptions, describeStoreConformance } from './conformance.js';
export {
  type FakeHandler,
  type FakeHttpServer,
  type FakeReply,
  type RecordedRequest,
  sse,
  startFakeHttpServer,
} from './fake-http-server.js';
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export {
  createMockModel,
  createMockProvider,
  type MockModel,
  type MockModelOptions,
  type MockResponse,
} from './mock-models.js';
export {
  fileSnapshotEvent,
  messageEvent,
  messageEvents,
  TEST_TIME,
  testHeader,
  testSessionId,
  testSummary,
} from './session-fixtures.js';
