// A LangGraph.js agent whose thread survives kill -9: a StateGraph with a model node and a
// tool node, checkpointed by ResumeCheckpointSaver on Conclave's file store. Run it, kill it
// at any moment, run it again: it continues the thread from its last durable checkpoint.
//
//   node src/agent.ts                      CONCLAVE_HOME (default ~/.conclave), thread "weather-desk"
//   AGENT_THREAD=other node src/agent.ts   another thread
//
// The model is scripted (no API key): it asks for the weather of each city in turn, then
// answers from the tool results. Its reply depends only on the messages it is given, so a
// resumed run produces exactly the transcript of an uninterrupted one.
import { appendFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { ResumeCheckpointSaver } from '@resume/langgraph';
import { createFsStore } from '@resume/storage-fs';
import { z } from 'zod';

const cities = ['Paris', 'Lagos', 'Osaka', 'Lima'];
const home = process.env.CONCLAVE_HOME ?? path.join(homedir(), '.conclave');
const threadId = process.env.AGENT_THREAD ?? 'weather-desk';
const toolDelayMs = Number(process.env.AGENT_TOOL_DELAY_MS ?? 200);
const toolLog = process.env.AGENT_TOOL_LOG;

const getWeather = tool(
  async ({ city }: { city: string }) => {
    await sleep(toolDelayMs); // a slow API: a good moment to be killed
    if (toolLog) appendFileSync(toolLog, `${JSON.stringify({ tool: 'get_weather', city, pid: process.pid })}\n`);
    const degrees = 10 + ([...city].reduce((sum, char) => sum + char.charCodeAt(0), 0) % 20);
    return `${city}: ${degrees} degrees, light wind`;
  },
  { name: 'get_weather', description: 'The weather in a city', schema: z.object({ city: z.string() }) },
);

/** A scripted chat model: one tool call per city not yet looked up, then a summary. */
class ScriptedWeatherModel extends BaseChatModel {
  _llmType(): string {
    return 'scripted-weather';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const results = messages.filter((message) => message instanceof ToolMessage);
    const next = cities[results.length];
    const message = next
      ? new AIMessage({
          content: `Looking up ${next}.`,
          tool_calls: [{ id: `call_${results.length}`, name: 'get_weather', args: { city: next }, type: 'tool_call' }],
        })
      : new AIMessage(`Weather desk report: ${results.map((result) => String(result.content)).join('; ')}.`);
    return { generations: [{ text: String(message.content), message }] };
  }
}

const model = new ScriptedWeatherModel({});
const graph = new StateGraph(MessagesAnnotation)
  .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addNode('tools', new ToolNode([getWeather]))
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', (state) => {
    const last = state.messages.at(-1);
    return last instanceof AIMessage && (last.tool_calls?.length ?? 0) > 0 ? 'tools' : END;
  })
  .addEdge('tools', 'agent');

const store = createFsStore({ dir: home });
const checkpointer = new ResumeCheckpointSaver({ store, title: (thread) => `LangGraph agent: ${thread}` });
const app = graph.compile({ checkpointer });
// `sync`: every step's checkpoint is durable before the next step starts.
const config = { configurable: { thread_id: threadId }, durability: 'sync' as const };

const say = (line: string) => process.stdout.write(`${line}\n`);
try {
  const state = await app.getState(config);
  const messages = (state.values.messages ?? []) as BaseMessage[];
  let input: { messages: BaseMessage[] } | null = null;
  if (messages.length === 0) {
    say(`thread ${threadId}: starting (session ${checkpointer.sessionIdOf(threadId)})`);
    input = { messages: [new HumanMessage(`Report the weather in ${cities.join(', ')}.`)] };
  } else {
    // No input: LangGraph continues from the last checkpoint, reusing the writes of tasks that
    // finished after it, and runs only what is left (nothing, when the thread is done).
    say(`thread ${threadId}: continuing after ${messages.length} messages`);
  }
  let steps = 0;
  for await (const update of await app.stream(input, { ...config, streamMode: 'updates' })) {
    for (const [node, output] of Object.entries(update as Record<string, { messages?: BaseMessage[] }>)) {
      steps += 1;
      for (const message of output.messages ?? []) say(`${node}: ${String(message.content)}`);
    }
  }
  if (steps === 0) say('nothing left to do: the thread is finished');
  const final = (await app.getState(config)).values.messages as BaseMessage[];
  say(`transcript: ${JSON.stringify(final.map((message) => String(message.content)))}`);
} finally {
  await checkpointer.close();
  await store.close();
}
