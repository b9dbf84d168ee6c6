import { UsageError } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';

export async function openBrowserCommand(_context: CliContext): Promise<number> {
  throw new UsageError('tui is not wired yet');
}
