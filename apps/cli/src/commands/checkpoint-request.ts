// `conclave checkpoint <id> [label]`: asks a session running in another terminal (or on
// another machine sharing the PostgreSQL store) to write a labelled checkpoint at its next
// safe point. The request goes through the store, never into the journal; `--wait` waits
// until the running session has written it.
import { hostname } from 'node:os';
import { UsageError } from '@resume/core/spec';
import { HANDLED_REQUESTS_KEY, requestCheckpoint } from '@resume/runner';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { resolveSession } from '../sessions/resolve-session.js';

const optionsSchema = z.object({
  wait: z.union([z.boolean(), z.string()]).optional(),
});

const DEFAULT_WAIT_SECONDS = 60;

function waitSeconds(value: boolean | string | undefined): number | null {
  if (value === undefined || value === false) return null;
  if (value === true) return DEFAULT_WAIT_SECONDS;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`--wait takes a number of seconds, not "${value}".`, { hint: 'Example: --wait 30' });
  return seconds;
}

export async function checkpointRequestCommand(
  context: CliContext,
  input: { reference: string; label: string | undefined; options: Record<string, unknown> },
): Promise<number> {
  const options = optionsSchema.parse(input.options);
  const wait = waitSeconds(options.wait);
  const label = input.label?.trim() || null;
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  const posted = await requestCheckpoint(engine, id, label, { pid: process.pid, host: hostname() });
  const what = label === null ? 'a checkpoint' : `checkpoint "${label}"`;
  const result: { sessionId: string; requestId: string; label: string | null; written: boolean; seq: number | null } = {
    sessionId: id,
    requestId: posted.request.id,
    label,
    written: false,
    seq: null,
  };
  context.terminal.note(
    `Asked session ${id} (running as pid ${posted.holder.pid} on ${posted.holder.host}) for ${what}; it is written at its next safe point.`,
  );
  if (wait !== null) {
    const deadline = context.environment.now().getTime() + wait * 1000;
    while (context.environment.now().getTime() < deadline) {
      const state = await engine.readSession(id);
      const handled = state.data[HANDLED_REQUESTS_KEY];
      if (Array.isArray(handled) && handled.includes(posted.request.id)) {
        const expected = label ?? `requested at ${posted.request.requestedAt}`;
        const checkpoint = state.checkpoints.findLast((entry) => entry.label === expected);
        result.written = true;
        result.seq = checkpoint?.seq ?? null;
        break;
      }
      if (state.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (result.written) context.terminal.note(`✓ Written at seq ${result.seq}.`);
    else
      context.terminal.warn(
        `Not written within ${wait}s (the session may be inside a long step, or it stopped); it is written at its next safe point if it runs on.`,
      );
  }
  if (context.options.json) context.terminal.data(JSON.stringify(result));
  return wait !== null && !result.written ? 1 : 0;
}
