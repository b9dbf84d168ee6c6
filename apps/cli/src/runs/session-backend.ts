// The sessions as the TUI's screens see them (listing, details, resume plans), for the
// browser and the pickers the CLI opens. The TUI is imported here, on first use, so
// commands that never show a screen never load Ink.

import type { Engine } from '@resume/core/engine';
import { createPlanner as createRunnerPlanner } from '@resume/runner';
import { whoAmI } from '../commands/answer.js';
import type { CliContext } from '../context/cli-context.js';
import { contentIndexFile, contentWordKey } from '../sessions/content-search.js';
import type { RunLimits } from './cost-limits.js';

/**
 * The runner's planner (dry runs, the details pane) over this CLI's engine, workspace and cost
 * limits. With `checkMcpServers` (a dry run) the MCP servers a session used are started to
 * compare their tool lists with the recorded ones; a details pane never starts them.
 */
export async function createPlanner(
  context: CliContext,
  limits: RunLimits = context.config().config.limits,
  availableModels?: () => Promise<readonly string[] | null>,
  checkMcpServers = false,
) {
  return createRunnerPlanner({
    engine: await context.engine(),
    workspaceDir: context.environment.cwd,
    limits,
    ...(availableModels ? { availableModels } : {}),
    ...(checkMcpServers ? { mcp: context.config().config.mcp, env: { ...context.environment.env } } : {}),
  });
}

export async function openSessionBackend(context: CliContext) {
  const engine = await context.engine();
  // The summaries are read while the screens load (Ink, React, the layout engine), so the
  // picker's first frame has them at once; later listings read afresh.
  let prefetched: ReturnType<Engine['listSessions']> | null = engine.listSessions();
  prefetched.catch(() => undefined);
  const tui = await import('@resume/tui');
  const planner = await createPlanner(context);
  const wordKey = await contentWordKey(context);
  const backend = tui.createEngineBackend({
    engine: {
      ...engine,
      listSessions(query) {
        const listing = query === undefined ? prefetched : null;
        prefetched = null;
        return listing ?? engine.listSessions(query);
      },
    },
    // Answers typed in the picker are journaled as from this user and machine, like `conclave answer`.
    answeredBy: whoAmI(),
    planResume: async (sessionId) => tui.resumePlanView(await planner.plan(sessionId)),
    contentIndex: {
      file: contentIndexFile(engine.store, context.config().config.home),
      store: engine.store,
      // Encrypted at rest: the words as keyed hashes, found whole (docs/encryption.md).
      ...(wordKey ? { wordKey } : {}),
      ...(engine.store.kind === 'fs'
        ? {
            storeStamp: async (previous: string | null) =>
              (await import('@resume/storage-fs/listing')).sessionsStamp(engine.store.location, previous),
          }
        : {}),
    },
  });
  return { tui, backend };
}
