// Test support shared by the workspace's packages (never published, never imported by
// shipped code): real child processes from TypeScript entries, waiting on file times, and
// values damaged in one place.
export {
  type BundledChild,
  type BundleOptions,
  bundleChild,
  bundleForNode,
  type ChildExit,
  collect,
  exited,
  onLines,
} from './child-process.js';
export { untilChangeIsOlderThan } from './file-clock.js';
export { mutate } from './mutate.js';
