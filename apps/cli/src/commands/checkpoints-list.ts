// `conclave checkpoints list <id>`: where a session can be resumed or branched from.
import { graphCheckpointsAdvice } from '@resume/tui/error-hints';
import type { CliContext } from '../context/cli-context.js';
import { formatWhen } from '../output/format.js';
import { resolveSession } from '../sessions/resolve-session.js';
import { shortIdsOfStore } from '../sessions/short-ids.js';
import { threadIdOf } from '../sessions/thread-id.js';

export async function listCheckpointsCommand(context: CliContext, input: { reference: string }): Promise<number> {
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  const state = await engine.readSession(id);
  const checkpoints = state.checkpoints.map((checkpoint) => ({
    seq: checkpoint.seq,
    label: checkpoint.label,
    at: checkpoint.at,
  }));
  if (context.options.json) {
    context.terminal.data(JSON.stringify(checkpoints));
    return 0;
  }
  if (checkpoints.length === 0) {
    const graphCheckpoints = state.graphCheckpoints ?? 0;
    context.terminal.out(
      graphCheckpoints > 0
        ? `${state.title} (${id}) holds ${graphCheckpoints} checkpoints of its graph: ${graphCheckpointsAdvice(threadIdOf(state.header) ?? id)}`
        : `Session ${id} has no checkpoints yet.`,
    );
    return 0;
  }
  context.terminal.out(`${state.title} (${id})`);
  context.terminal.out(context.terminal.dim(`${'SEQ'.padStart(6)}  ${'WHEN'.padEnd(16)}  LABEL`));
  for (const checkpoint of checkpoints)
    context.terminal.out(
      `${String(checkpoint.seq).padStart(6)}  ${formatWhen(checkpoint.at).padEnd(16)}  ${checkpoint.label ?? ''}`,
    );
  const shortId = await shortIdsOfStore(context, [id]);
  context.terminal.note(
    context.terminal.dim(
      `Branch from one with: conclave --branch-from ${shortId(id)} --from-checkpoint <seq> "question"`,
    ),
  );
  return 0;
}
