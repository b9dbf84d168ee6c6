// Orchestrated mode (and prompt files): a lead agent with workspace tools. Each model turn
// is a step; each tool call the model asks for is its own step, idempotent for reads and
// unsafe for writes and commands, so a resume never repeats a side effect silently.

import type { JsonValue, ToolCall } from '@resume/core/spec';
import { z } from 'zod';
import type { AgentSpec } from './agent-spec.js';
import { runAgentTurn, transcriptInput } from './agent-turn.js';
import { questionOf } from './ask-user-tool.js';
import {
  checkpoint,
  ensureStepMessage,
  type ModeContext,
  type ModeResult,
  type ModeTool,
  reportProgress,
  setData,
  type ToolOutcome,
} from './mode-context.js';

export interface OrchestratedOptions {
  lead: AgentSpec;
  tools: ModeTool[];
  /** Model turns before the run stops with what it has (default 20). */
  maxIterations: number;
}

const toolOutcomeSchema = z.object({ content: z.string(), isError: z.boolean() });
type ToolOutcomeRecord = z.infer<typeof toolOutcomeSchema>;

const outcomeCodec = {
  encode: (value: ToolOutcomeRecord): JsonValue => value,
  decode: (value: JsonValue): ToolOutcomeRecord => toolOutcomeSchema.parse(value),
};

/**
 * One tool call the model asked for, as a durable step keyed `key` (in a concurrent `branch`
 * when one is given): a replay returns the recorded outcome, a failing tool is an error result.
 */
export async function runToolCall(
  context: ModeContext,
  key: string,
  call: ToolCall,
  tool: ModeTool | undefined,
  branch?: string,
): Promise<ToolOutcome> {
  const { session } = context;
  if (!session.state.toolCalls.some((recorded) => recorded.callId === call.id)) {
    session.record({ type: 'tool-call-started', callId: call.id, name: call.name, args: call.args, stepKey: key });
  }
  const outcome = tool?.asksUser
    ? await askUser(context, key, call)
    : tool
      ? await session.step(
          key,
          async (step) => {
            try {
              return await tool.execute(call.args, { signal: step.signal, idempotencyKey: step.idempotencyKey });
            } catch (error) {
              if (step.signal.aborted) throw error;
              // A failing tool is something the model should see and react to, not the end of the run.
              return { content: error instanceof Error ? error.message : String(error), isError: true };
            }
          },
          {
            safety: tool.safety,
            codec: outcomeCodec,
            skipValue: {
              content: 'This call was skipped when the session resumed; its effect is unknown.',
              isError: true,
            },
            ...(context.onUncertain ? { onUncertain: askAboutCall(context.onUncertain, call, tool) } : {}),
            ...(branch !== undefined ? { branch } : {}),
          },
        )
      : { content: `Unknown tool "${call.name}".`, isError: true };
  const recorded = session.state.toolCalls.find((entry) => entry.callId === call.id);
  if (recorded && recorded.completedSeq === null) {
    session.record({
      type: 'tool-call-completed',
      callId: call.id,
      name: call.name,
      result: outcome.content,
      isError: outcome.isError,
    });
  }
  return outcome;
}

/** An `ask_user` call: the question waits for the user's answer (see ask-user-tool.ts). */
async function askUser(context: ModeContext, key: string, call: ToolCall): Promise<ToolOutcome> {
  const question = questionOf(call.args);
  if (question === null) return { content: 'ask_user needs a "question" (a non-empty string).', isError: true };
  const answer = await context.session.waitFor(key, { schema: z.string(), prompt: question });
  return { content: answer, isError: false };
}

export async function runOrchestrated(context: ModeContext, options: OrchestratedOptions): Promise<ModeResult> {
  const { session } = context;
  const toolsByName = new Map(options.tools.map((tool) => [tool.definition.name, tool]));
  const definitions = options.tools.map((tool) => tool.definition);
  for (let turn = 1; turn <= options.maxIterations; turn += 1) {
    reportProgress(context, 'turns', turn - 1, null);
    const key = `turn-${turn}/${options.lead.name}`;
    const output = await runAgentTurn(context, {
      key,
      agent: options.lead,
      ...transcriptInput(session.state.messages, options.lead.systemPrompt),
      tools: definitions,
      round: turn,
      metadata: { role: 'lead', round: turn },
    });
    ensureStepMessage(context, key, {
      role: 'assistant',
      content: output.content,
      speaker: options.lead.name,
      round: turn,
      ...(output.toolCalls.length > 0 ? { toolCalls: output.toolCalls } : {}),
    });
    if (output.toolCalls.length === 0) {
      reportProgress(context, 'turns', turn, null);
      setData(context, 'conclusion', output.content);
      await checkpoint(context, `turn ${turn}, done`);
      return { conclusion: output.content };
    }
    await checkpoint(context, `turn ${turn}, ${options.lead.name}`);
    for (const [index, call] of output.toolCalls.entries()) {
      const toolKey = `turn-${turn}/tool-${index + 1}/${call.name}`;
      const outcome = await runToolCall(context, toolKey, call, toolsByName.get(call.name));
      ensureStepMessage(context, toolKey, {
        role: 'tool',
        content: outcome.content,
        speaker: call.name,
        round: turn,
        toolCallId: call.id,
        ...(outcome.isError ? { tags: ['tool-error'] } : {}),
      });
      await checkpoint(context, `turn ${turn}, tool ${index + 1} ${call.name}`);
    }
    context.emit({ type: 'usage', totals: session.state.usage });
  }
  context.emit({ type: 'notice', text: `Stopped after ${options.maxIterations} turns without a final answer.` });
  setData(context, 'orchestrated', { stoppedAtLimit: true });
  const last = session.state.messages.filter((message) => message.role === 'assistant').at(-1);
  return { conclusion: last?.content ?? null };
}

/** The question about an uncertain tool call names the call: the tool (an MCP server's, which one) and its arguments. */
function askAboutCall(
  onUncertain: NonNullable<ModeContext['onUncertain']>,
  call: ToolCall,
  tool: ModeTool,
): NonNullable<ModeContext['onUncertain']> {
  return (step) =>
    onUncertain({
      ...step,
      toolCall: {
        name: call.name,
        args: call.args,
        ...(tool.mcp ? { server: tool.mcp.server, tool: tool.mcp.tool } : {}),
      },
    });
}
