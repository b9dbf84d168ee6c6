// What the journal says of a workflow's parallel group: which group the chain reached last
// (recorded as data when it starts) and where each of its steps stands, found by branch.
// Small on purpose: the resume plan reads it without loading the chain itself.
import type { SessionState } from '@resume/core';
import { lazySchema } from '@resume/core/lazy-schema';
import { z } from 'zod';

/** `data` key of the parallel group the chain reached last: `{ step, id, members }`. */
export const PARALLEL_GROUP_KEY = 'parallelGroup';

const parallelGroupDataSchema = lazySchema(() =>
  z.object({
    step: z.number().int().positive(),
    totalSteps: z.number().int().positive().optional(),
    id: z.string(),
    members: z.array(z.string()),
  }),
);

/** The engine branch a member's steps are journaled in. */
export function branchName(group: string, member: string): string {
  return `${group}/${member}`;
}

/** The parallel group the chain reached last, as recorded when it started (null: none). */
export function recordedParallelGroup(state: SessionState): z.infer<typeof parallelGroupDataSchema> | null {
  const parsed = parallelGroupDataSchema.safeParse(state.data[PARALLEL_GROUP_KEY]);
  return parsed.success ? parsed.data : null;
}

/**
 * Where each step of the parallel group at chain step `step` stands, from the journal
 * ("a done, b uncertain, review not started"), or null when the chain did not reach it.
 */
export function describeParallelGroup(state: SessionState, step: number): string | null {
  const group = recordedParallelGroup(state);
  if (group === null || group.step !== step) return null;
  const { id, members } = group;
  const described = members.map((member) => {
    const records = state.steps.filter((record) => record.branch === branchName(id, member));
    // The member's own step; its on_failure fixes are steps of the same branch.
    const main = records.find((record) => !record.key.includes('/on-failure-'));
    if (records.some((record) => record.status === 'started')) return `${member} uncertain`;
    if (main?.status === 'completed') return `${member} done`;
    if (main?.status === 'skipped') return `${member} skipped`;
    if (main?.status === 'failed') return `${member} failed (runs again)`;
    return `${member} not started`;
  });
  return `parallel: ${described.join(', ')}`;
}
