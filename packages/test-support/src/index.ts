// Test support shared by the workspace's packages (never published, never imported by
// shipped code): real child processes from TypeScript entries, and waiting on file times.
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
