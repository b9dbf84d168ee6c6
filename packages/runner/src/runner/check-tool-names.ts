// The tools a prompt file or an orchestrated run asks for must exist: checked before the
// session is created (a usage error creates nothing) and again when the tools are built.
import { ConfigError } from '@resume/core/spec';

/** Throws a ConfigError naming the file, `tools` and the tools that do exist. */
export function checkToolNames(requested: readonly string[], available: readonly string[], file: string | null): void {
  const missing = requested.filter((name) => !available.includes(name));
  if (missing.length === 0) return;
  throw new ConfigError({
    file,
    key: 'tools',
    problem: `unknown tool${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`,
    fix: `Available tools: ${available.join(', ') || '(none)'}${
      available.includes('run_command') || !missing.includes('run_command')
        ? ''
        : ' (run_command is offered once tools.allowCommands lists the commands it may run)'
    }.`,
  });
}
