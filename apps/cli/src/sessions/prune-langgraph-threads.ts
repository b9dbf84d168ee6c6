// `conclave sessions cleanup --langgraph-keep N`: drops the old checkpoints of every LangGraph
// thread in the store (`pruneThread` of `@resume/langgraph`), keeping the newest N of each
// namespace and everything they need. Imported only when the flag is given: LangGraph's
// serializer is not on any other command's path.
import { ResumeCheckpointSaver, ThreadBusyError, type ThreadPruneReport } from '@resume/langgraph';
import type { CliContext } from '../context/cli-context.js';

export interface LangGraphPruneOutcome {
  keep: number;
  /** Threads that had checkpoints to drop (all of them, with `checkpointsAfter`, in a dry run). */
  pruned: ThreadPruneReport[];
  /** Threads that kept all their checkpoints already. */
  unchanged: number;
  /** Threads that could not be pruned now (another process runs them), with why. */
  skipped: Array<{ threadId: string; sessionId: string; reason: string }>;
}

export async function pruneLangGraphThreads(
  context: CliContext,
  keep: number,
  dryRun: boolean,
): Promise<LangGraphPruneOutcome> {
  const store = await context.store();
  const saver = new ResumeCheckpointSaver({ store });
  const outcome: LangGraphPruneOutcome = { keep, pruned: [], unchanged: 0, skipped: [] };
  try {
    const threads = await saver.pruneThreads({ keepLast: keep, dryRun: true });
    for (const planned of threads) {
      if (planned.checkpointsAfter === planned.checkpointsBefore && planned.eventsAfter === planned.eventsBefore) {
        outcome.unchanged += 1;
        continue;
      }
      if (dryRun) {
        outcome.pruned.push(planned);
        continue;
      }
      try {
        outcome.pruned.push(await saver.pruneThread(planned.threadId, { keepLast: keep }));
      } catch (error) {
        if (!ThreadBusyError.isInstance(error)) throw error;
        outcome.skipped.push({ threadId: planned.threadId, sessionId: planned.sessionId, reason: error.message });
      }
    }
  } finally {
    await saver.close();
  }
  return outcome;
}
