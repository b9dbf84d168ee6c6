// `@resume/core`: durable, resumable AI sessions.
export * as spec from './spec/index.js';
