import { UsageError } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';

export interface FlowInput {
  kind: 'start' | 'continue' | 'resume' | 'branch';
  task: string;
  options: Record<string, unknown>;
}

export async function runSessionFlow(_context: CliContext, input: FlowInput): Promise<number> {
  throw new UsageError(`${input.kind} is not wired yet`);
}
