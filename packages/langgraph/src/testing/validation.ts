// Test support: LangGraph's own checkpointer validation suite (`@langchain/langgraph-checkpoint-validation`,
// run unchanged through its `validate` entry point) plus its opt-in delta-channel history
// suite, over ResumeCheckpointSaver on a store each checkpointer gets to itself.
import { deltaChannelHistoryTests, validate } from '@langchain/langgraph-checkpoint-validation';
import type { SessionStore } from '@resume/core/spec';
import { ResumeCheckpointSaver } from '../saver/resume-checkpoint-saver.js';

export interface ValidationStore {
  store: SessionStore;
  /** Removes what the store kept (after the store is closed). */
  cleanup(): Promise<void>;
}

export function validateOnStore(
  name: string,
  openStore: () => Promise<ValidationStore>,
  hooks: { beforeAll?: () => Promise<void>; afterAll?: () => Promise<void> } = {},
): void {
  const cleanups = new WeakMap<ResumeCheckpointSaver, () => Promise<void>>();
  const initializer = {
    checkpointerName: `@resume/langgraph (${name})`,
    ...(hooks.beforeAll ? { beforeAll: hooks.beforeAll, beforeAllTimeout: 60_000 } : {}),
    ...(hooks.afterAll ? { afterAll: hooks.afterAll } : {}),
    async createCheckpointer() {
      const { store, cleanup } = await openStore();
      const saver = new ResumeCheckpointSaver({ store });
      cleanups.set(saver, async () => {
        await saver.close();
        await store.close();
        await cleanup();
      });
      return saver;
    },
    async destroyCheckpointer(saver: ResumeCheckpointSaver) {
      await cleanups.get(saver)?.();
    },
  };
  validate(initializer);
  deltaChannelHistoryTests(initializer);
}
