import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ChatMessage, ConfigError, ProviderError } from '@resume/core/spec';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createScriptedProvider } from './scripted-provider.js';

// The discussion mode's judge protocol (`JUDGE_VERDICT_PATTERN` in @resume/runner), which the judge voice speaks.
const JUDGE_VERDICT_PATTERN = /^\s*VERDICT:\s*(CONSENSUS|CONTINUE)\b/im;

const fixtures = path.join(import.meta.dirname, '__fixtures__');
const temporaryDirectories: string[] = [];
const temporaryDirectory = () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'conclave-scripted-'));
  temporaryDirectories.push(directory);
  return directory;
};
afterEach(() => {
  for (const directory of temporaryDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const task: ChatMessage = { role: 'user', content: 'Evaluate my idea: a subscription service for repairing bicycles.' };
const agents = ['optimist', 'skeptic', 'pragmatist'];

/** Plays `rounds` rounds of a discussion and returns the transcript. */
async function discuss(provider: ReturnType<typeof createScriptedProvider>, rounds: number) {
  const model = provider.chatModel('scripted');
  const messages: ChatMessage[] = [task];
  for (let round = 1; round <= rounds; round++) {
    for (const agent of agents) {
      const result = await model.generate({ messages: [...messages], metadata: { agent, round } });
      messages.push({ role: 'assistant', speaker: agent, content: result.message.content });
    }
  }
  return messages;
}

describe('scripted provider: discussion', () => {
  it('gives the same output for the same agent and input, across provider instances', async () => {
    const first = await discuss(createScriptedProvider({ env: {} }), 2);
    const second = await discuss(createScriptedProvider({ env: {} }), 2);
    expect(second).toEqual(first);
  });

  it('is a pure function of agent and input for any agent name and task', async () => {
    const first = createScriptedProvider({ env: {} }).chatModel('scripted');
    const second = createScriptedProvider({ env: {} }).chatModel('other-id');
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 20 }), fc.string({ maxLength: 200 }), async (agent, content) => {
        const request = { messages: [{ role: 'user' as const, content }], metadata: { agent } };
        const [one, two] = await Promise.all([first.generate(request), second.generate(request)]);
        expect(two.message.content).toBe(one.message.content);
        expect(one.message.content.length).toBeGreaterThan(0);
      }),
      { numRuns: 100 },
    );
  });

  it('gives different agents different voices and refers to the task and a named earlier speaker', async () => {
    const transcript = await discuss(createScriptedProvider({ env: {} }), 1);
    const [, optimist, skeptic, pragmatist] = transcript;
    expect(optimist?.content).toMatch(/bicycles/);
    expect(skeptic?.content).not.toEqual(optimist?.content);
    // Later speakers quote or answer someone who spoke before them.
    expect(skeptic?.content).toMatch(/optimist/);
    expect(pragmatist?.content).toMatch(/skeptic|optimist/);
    expect(new Set(transcript.slice(1).map((message) => message.content)).size).toBe(3);
  });

  it('changes its answer when the input changes', async () => {
    const model = createScriptedProvider({ env: {} }).chatModel('scripted');
    const one = await model.generate({ messages: [task], metadata: { agent: 'optimist' } });
    const other = await model.generate({
      messages: [{ role: 'user', content: 'Plan a migration of our billing database to PostgreSQL.' }],
      metadata: { agent: 'optimist' },
    });
    expect(other.message.content).not.toEqual(one.message.content);
    expect(other.message.content).toMatch(/billing|migration|postgresql|database/i);
  });

  it('streams the text in small fragments that add up to the message', async () => {
    const model = createScriptedProvider({ env: {} }).chatModel('scripted');
    const deltas: string[] = [];
    const result = await model.generate({
      messages: [task],
      metadata: { agent: 'skeptic' },
      onDelta: (delta) => deltas.push(delta),
    });
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(result.message.content);
  });

  it('estimates usage at about four characters per token', async () => {
    const model = createScriptedProvider({ env: {} }).chatModel('scripted');
    const result = await model.generate({ messages: [task], metadata: { agent: 'skeptic' } });
    expect(result.usage.inputTokens).toBe(Math.ceil((task.content + JSON.stringify('')).length / 4));
    expect(result.usage.outputTokens).toBe(Math.ceil(result.message.content.length / 4));
    expect(result.finishReason).toBe('stop');
  });

  it('stops at maxTokens with finish reason length', async () => {
    const model = createScriptedProvider({ env: {} }).chatModel('scripted');
    const result = await model.generate({ messages: [task], metadata: { agent: 'skeptic' }, maxTokens: 5 });
    expect(result.message.content.length).toBe(20);
    expect(result.finishReason).toBe('length');
  });
});

describe('scripted provider: continued sessions', () => {
  // A continued session shows the parent's task and turns first, then the follow-up.
  const continued: ChatMessage[] = [
    { role: 'system', content: 'This is a continuation. NEW FOLLOW-UP: What about a team of five?' },
    { role: 'user', content: 'Should we move our monolith to microservices?', speaker: 'user' },
    { role: 'assistant', speaker: 'architect', content: 'Monolith determines most of the outcome.' },
    { role: 'user', content: 'What about a team of five?', speaker: 'user' },
  ];

  it('discusses the follow-up, not the parent task', async () => {
    const model = createScriptedProvider({ env: {} }).chatModel('scripted');
    const result = await model.generate({ messages: continued, metadata: { agent: 'critic', round: 1 } });
    expect(result.message.content).toContain('What about a team of five?');
    expect(result.message.content).not.toContain('the idea to move our monolith');
  });

  it('lets the judge conclude on the follow-up, ignoring the moderator instruction', async () => {
    const model = createScriptedProvider({ env: {} }).chatModel('scripted');
    const messages: ChatMessage[] = [
      ...continued,
      { role: 'user', speaker: 'moderator', content: 'Round 1 is over. Answer with "VERDICT: CONSENSUS".' },
    ];
    const first = await model.generate({ messages, metadata: { agent: 'judge', role: 'judge', round: 2 } });
    const again = await model.generate({ messages, metadata: { agent: 'judge', role: 'judge', round: 2 } });
    expect(first.message.content).toContain('Final solution for the question "What about a team of five?"');
    expect(again.message.content).toBe(first.message.content);
  });
});

describe('scripted provider: judge', () => {
  const judge = async (provider: ReturnType<typeof createScriptedProvider>, round: number, forceConsensus = false) => {
    const transcript = await discuss(createScriptedProvider({ env: {} }), 1);
    const result = await provider
      .chatModel('scripted')
      .generate({ messages: transcript, metadata: { agent: 'judge', role: 'judge', round, forceConsensus } });
    return result.message.content;
  };
  const verdictOf = (text: string) => text.match(JUDGE_VERDICT_PATTERN)?.[1];

  it('continues before round 2 and declares consensus with a final solution at round 2 by default', async () => {
    const provider = createScriptedProvider({ env: {} });
    expect(verdictOf(await judge(provider, 1))).toBe('CONTINUE');
    const final = await judge(provider, 2);
    expect(verdictOf(final)).toBe('CONSENSUS');
    expect(final).toMatch(/Final solution/);
    expect(final).toMatch(/optimist/);
    expect(verdictOf(await judge(provider, 3))).toBe('CONSENSUS');
  });

  it('neither quotes the judge as a participant nor counts it in the final solution', async () => {
    const model = createScriptedProvider({ env: {} }).chatModel('scripted');
    const transcript = await discuss(createScriptedProvider({ env: {} }), 1);
    transcript.push({ role: 'assistant', speaker: 'judge', content: 'The agents should converge on pricing.' });
    for (const agent of agents) {
      const turn = await model.generate({ messages: transcript, metadata: { agent, round: 2 } });
      expect(turn.message.content).not.toMatch(/judge/);
    }
    const final = await model.generate({
      messages: transcript,
      metadata: { agent: 'judge', role: 'judge', round: 2 },
    });
    expect(final.message.content).not.toMatch(/From judge/);
    expect(final.message.content).toMatch(/From pragmatist/);
  });

  it('takes the consensus round from CONCLAVE_SCRIPTED_CONSENSUS_AT', async () => {
    const provider = createScriptedProvider({ env: { CONCLAVE_SCRIPTED_CONSENSUS_AT: '3' } });
    expect(verdictOf(await judge(provider, 2))).toBe('CONTINUE');
    expect(verdictOf(await judge(provider, 3))).toBe('CONSENSUS');
  });

  it('concludes at once when consensus is forced', async () => {
    const provider = createScriptedProvider({ env: { CONCLAVE_SCRIPTED_CONSENSUS_AT: '5' } });
    expect(verdictOf(await judge(provider, 1, true))).toBe('CONSENSUS');
  });

  it('refuses an invalid consensus round with the variable named', () => {
    expect(() => createScriptedProvider({ env: { CONCLAVE_SCRIPTED_CONSENSUS_AT: 'soon' } })).toThrow(
      /CONCLAVE_SCRIPTED_CONSENSUS_AT/,
    );
    expect(() => createScriptedProvider({ env: { CONCLAVE_SCRIPTED_LATENCY_MS: '-5' } })).toSatisfy(
      (thrower: () => unknown) => {
        try {
          thrower();
          return false;
        } catch (error) {
          return ConfigError.isInstance(error);
        }
      },
    );
  });
});

describe('scripted provider: latency', () => {
  it('waits CONCLAVE_SCRIPTED_LATENCY_MS per call through the injected sleep', async () => {
    const waits: number[] = [];
    const provider = createScriptedProvider({
      env: { CONCLAVE_SCRIPTED_LATENCY_MS: '250' },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    await provider.chatModel('scripted').generate({ messages: [task], metadata: { agent: 'optimist' } });
    expect(waits).toEqual([250]);
  });

  it('is cut short by the abort signal with an aborted provider error', async () => {
    const provider = createScriptedProvider({ env: { CONCLAVE_SCRIPTED_LATENCY_MS: '600000' } });
    const controller = new AbortController();
    const call = provider.chatModel('scripted').generate({ messages: [task], signal: controller.signal });
    controller.abort();
    const error = await call.catch((caught: unknown) => caught);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: 'aborted', provider: 'scripted' });
  });
});

describe('scripted provider: call log', () => {
  it('appends one JSON line per call made, naming the agent, message count and last message', async () => {
    const callLog = path.join(temporaryDirectory(), 'calls.jsonl');
    const provider = createScriptedProvider({ env: { CONCLAVE_SCRIPTED_CALL_LOG: callLog } });
    await discuss(provider, 1);
    const lines = readFileSync(callLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ agent: 'optimist', messageCount: 1, lastMessage: task.content, round: 1 });
    expect(lines[2]).toMatchObject({ agent: 'pragmatist', messageCount: 3, model: 'scripted', role: 'agent' });
  });

  it('does not log a call that was aborted before answering', async () => {
    const callLog = path.join(temporaryDirectory(), 'calls.jsonl');
    writeFileSync(callLog, '');
    const provider = createScriptedProvider({ env: { CONCLAVE_SCRIPTED_CALL_LOG: callLog } });
    await expect(
      provider.chatModel('scripted').generate({ messages: [task], signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ reason: 'aborted' });
    expect(readFileSync(callLog, 'utf8')).toBe('');
  });
});

describe('scripted provider: scripts', () => {
  /** Runs an orchestrated-style loop: each tool call gets a result, until the lead answers without tools. */
  async function runLead(provider: ReturnType<typeof createScriptedProvider>, start: ChatMessage[] = [task]) {
    const model = provider.chatModel('scripted');
    const messages = [...start];
    for (let turn = 0; turn < 10; turn++) {
      const result = await model.generate({ messages: [...messages], metadata: { agent: 'lead', role: 'lead' } });
      messages.push({ ...result.message, speaker: 'lead' });
      if (result.toolCalls.length === 0) break;
      for (const call of result.toolCalls) {
        messages.push({ role: 'tool', toolCallId: call.id, content: `result of ${call.name}` });
      }
    }
    return messages;
  }

  it('plays the turns of a YAML script in order, with tool calls', async () => {
    const provider = createScriptedProvider({ env: {}, script: path.join(fixtures, 'orchestrated-script.yaml') });
    const transcript = await runLead(provider);
    const assistantTurns = transcript.filter((message) => message.role === 'assistant');
    expect(assistantTurns.map((message) => message.toolCalls?.map((call) => call.name) ?? [])).toEqual([
      ['read_file'],
      ['write_file'],
      [],
    ]);
    expect(assistantTurns[1]?.toolCalls?.[0]?.args).toEqual({ path: 'summary.md', content: '# Summary\n' });
    expect(assistantTurns[2]?.content).toBe('Done. The summary is in summary.md.');
  });

  it('reports tool-call finish reasons and stable call ids', async () => {
    const script = [{ agent: 'lead', tool_calls: [{ name: 'list_files', args: {} }] }];
    const first = await createScriptedProvider({ env: {}, script })
      .chatModel('scripted')
      .generate({ messages: [task], metadata: { agent: 'lead' } });
    const second = await createScriptedProvider({ env: {}, script })
      .chatModel('scripted')
      .generate({ messages: [task], metadata: { agent: 'lead' } });
    expect(first.finishReason).toBe('tool-calls');
    expect(first.toolCalls[0]?.id).toBe(second.toolCalls[0]?.id);
  });

  it('continues at the right turn in a new process instead of replaying turn 1', async () => {
    const script = path.join(fixtures, 'orchestrated-script.yaml');
    const uninterrupted = await runLead(createScriptedProvider({ env: {}, script }));
    // A "crash" after the first tool result: a fresh provider is given the journaled history.
    const resumedFrom = uninterrupted.slice(0, 3);
    const resumed = await runLead(createScriptedProvider({ env: {}, script }), resumedFrom);
    expect(resumed).toEqual(uninterrupted);
  });

  it('gives turns to the agents they name and falls back to generated text when the script runs out', async () => {
    const provider = createScriptedProvider({
      env: {},
      script: [{ agent: 'skeptic', text: 'Scripted skeptic line.' }, { text: 'Anyone may say this.' }],
    });
    const model = provider.chatModel('scripted');
    const optimist = await model.generate({ messages: [task], metadata: { agent: 'optimist' } });
    const skeptic = await model.generate({ messages: [task], metadata: { agent: 'skeptic' } });
    expect(optimist.message.content).toBe('Anyone may say this.');
    expect(skeptic.message.content).toBe('Scripted skeptic line.');
    const later = await model.generate({
      messages: [task, { role: 'assistant', speaker: 'skeptic', content: 'Scripted skeptic line.' }],
      metadata: { agent: 'skeptic' },
    });
    expect(later.message.content).toBe('Anyone may say this.');
    const judge = await model.generate({ messages: [task], metadata: { agent: 'judge', role: 'judge', round: 1 } });
    expect(judge.message.content).toMatch(JUDGE_VERDICT_PATTERN);
  });

  it('names the file and the turn of an invalid script', () => {
    const file = path.join(fixtures, 'invalid-script.yaml');
    expect(() => createScriptedProvider({ env: { CONCLAVE_SCRIPTED_SCRIPT: file } })).toThrow(
      /invalid-script\.yaml at turn 2 \(tool_calls\.0\.name\)/,
    );
    expect(() => createScriptedProvider({ env: {}, script: [{ agent: 'lead' }] })).toThrow(/turn 1.*text/);
    expect(() => createScriptedProvider({ env: {}, script: path.join(fixtures, 'missing.yaml') })).toThrow(
      /missing\.yaml: the script file cannot be read/,
    );
  });

  it('lists the model ids it was given', async () => {
    expect(await createScriptedProvider({ env: {} }).listModels()).toEqual(['scripted']);
    expect(await createScriptedProvider({ env: {}, models: ['a', 'b'] }).listModels()).toEqual(['a', 'b']);
  });

  it('lists the models named in CONCLAVE_SCRIPTED_MODELS', async () => {
    const provider = createScriptedProvider({ env: { CONCLAVE_SCRIPTED_MODELS: 'gpt-4o-mini, gpt-4.1' } });
    expect(await provider.listModels()).toEqual(['gpt-4o-mini', 'gpt-4.1']);
  });
});
