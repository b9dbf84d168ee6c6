// The modes Conclave ships, registered in one place. A new built-in mode is one file beside
// these and one line here; a program adds its own with `builtinModes.with(myMode)`.
import { chainMode } from './chain-mode.js';
import { discussionMode } from './discussion-mode.js';
import { iterativeMode } from './iterative-mode.js';
import { createModeRegistry } from './mode-registry.js';
import { orchestratedMode } from './orchestrated-mode.js';
import { promptMode } from './prompt-mode.js';

// Order matters for files: the prompt mode claims `.prompt.md` before the chain mode takes the rest.
export const builtinModes = createModeRegistry([
  discussionMode,
  iterativeMode,
  orchestratedMode,
  promptMode,
  chainMode,
]);
