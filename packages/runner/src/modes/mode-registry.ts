// Modes by name. The runner, the resume plan and the CLI look modes up here; a session
// records the name, so a resume finds the same mode again (or a typed error naming it).
import { SESSION_MODE_PATTERN, UsageError } from '@resume/core/spec';
import type { Mode, ModeConfig } from './mode.js';
import { UnknownModeError } from './unknown-mode-error.js';

export interface ModeRegistry {
  /** The mode registered under `name`; an unknown one is an UnknownModeError naming the registered ones. */
  get(name: string, sessionId?: string | null): Mode;
  has(name: string): boolean;
  /** Every registered mode, in registration order. */
  list(): readonly Mode[];
  names(): string[];
  /** The file-started mode that runs `filePath` (the first registered whose `matches` accepts it). */
  forFile(filePath: string): Mode | null;
  /** A registry with these modes added (a name already registered is an error). */
  with(...modes: Mode[]): ModeRegistry;
}

export function createModeRegistry(modes: readonly Mode[]): ModeRegistry {
  const byName = new Map<string, Mode>();
  for (const mode of modes) {
    if (!SESSION_MODE_PATTERN.test(mode.name))
      throw new UsageError(`Mode name "${mode.name}" is not valid.`, {
        hint: 'A mode name is lower-case letters, digits and single hyphens, e.g. "code-review".',
      });
    if (mode.name === 'custom')
      throw new UsageError('"custom" is the mode of sessions a program runs itself; choose another mode name.');
    if (byName.has(mode.name)) throw new UsageError(`Two modes are registered as "${mode.name}".`);
    byName.set(mode.name, mode);
  }
  const list = [...byName.values()];
  return {
    get(name, sessionId = null) {
      const mode = byName.get(name);
      if (!mode) throw new UnknownModeError({ mode: name, registered: [...byName.keys()], sessionId });
      return mode;
    },
    has: (name) => byName.has(name),
    list: () => list,
    names: () => [...byName.keys()],
    forFile(filePath) {
      return list.find((mode) => mode.startsFrom.kind === 'file' && mode.startsFrom.matches(filePath)) ?? null;
    },
    with: (...added) => createModeRegistry([...list, ...added]),
  };
}

/** The mode of a run config, looked up in the registry. */
export function modeOf(registry: ModeRegistry, config: ModeConfig, sessionId: string | null = null): Mode {
  return registry.get(config.mode, sessionId);
}
