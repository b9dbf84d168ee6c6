// The scripted output of a fixed input is pinned in __fixtures__/golden-discussion.json: any
// process, on any machine, on any day must produce exactly it (no clock, no Math.random, no
// dependence on process state), so sessions recorded elsewhere resume to the same transcript.
// After an intended change of phrasing, regenerate with CONCLAVE_UPDATE_GOLDEN=1.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChatMessage } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createScriptedProvider } from './scripted-provider.js';

const goldenFile = path.join(import.meta.dirname, '__fixtures__', 'golden-discussion.json');
const goldenSchema = z.array(z.object({ agent: z.string(), content: z.string() }));

async function transcript() {
  const model = createScriptedProvider({ env: {} }).chatModel('scripted');
  const messages: ChatMessage[] = [{ role: 'user', content: 'Should we move our nightly batch jobs to a queue?' }];
  const turns: Array<{ agent: string; content: string }> = [];
  for (let round = 1; round <= 2; round++) {
    for (const agent of ['architect', 'critic', 'pragmatist', 'judge']) {
      const role = agent === 'judge' ? 'judge' : 'agent';
      const result = await model.generate({ messages: [...messages], metadata: { agent, role, round } });
      messages.push({ role: 'assistant', speaker: agent, content: result.message.content });
      turns.push({ agent, content: result.message.content });
    }
  }
  return turns;
}

describe('scripted provider: golden output', () => {
  it('produces the recorded transcript for the recorded input', async () => {
    const turns = await transcript();
    if (process.env.CONCLAVE_UPDATE_GOLDEN === '1') writeFileSync(goldenFile, `${JSON.stringify(turns, null, 2)}\n`);
    const golden = goldenSchema.parse(JSON.parse(readFileSync(goldenFile, 'utf8')));
    expect(turns).toEqual(golden);
  });
});
