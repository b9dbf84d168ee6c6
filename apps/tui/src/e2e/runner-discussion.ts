// A discussion as the runner leaves one, written straight to a data home for the terminal tests:
// it recorded its run (what the picker checks before Enter or `c`) and the task as its first message.
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';

export async function writeRunnerDiscussion(
  home: string,
  title: string,
  ending: 'interrupted' | 'completed',
): Promise<void> {
  const engine = createEngine({ store: createFsStore({ dir: home }) });
  const session = await engine.createSession({ title, mode: 'discussion', options: { run: { mode: 'discussion' } } });
  session.addMessage({ role: 'user', content: title });
  if (ending === 'interrupted') await session.interrupt();
  else await session.complete();
  await session.close();
  await engine.close();
}
