import { UsageError } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';

export async function runWorkflowCommand(
  _context: CliContext,
  _input: { file: string | undefined; options: Record<string, unknown> },
): Promise<number> {
  throw new UsageError('run is not wired yet');
}
