// Maps Conclave's multi-agent transcript onto Chat Completions messages. The model speaks
// for one agent (metadata.agent): its own turns stay `assistant`; every other agent's turn
// becomes `user` content prefixed `[<speaker>]: `, because the API has a single assistant.
import type { ChatMessage, GenerateRequest, ToolDefinition } from '@resume/core/spec';
import type OpenAI from 'openai';

type OpenAIMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type OpenAITool = OpenAI.Chat.Completions.ChatCompletionTool;

/** Whether a transcript message is one of the calling agent's own turns. */
export function isOwnTurn(message: ChatMessage, agent: string | undefined): boolean {
  return message.speaker === undefined || message.speaker === null || agent === undefined || message.speaker === agent;
}

export function toOpenAIMessages(request: GenerateRequest): OpenAIMessage[] {
  const agent = request.metadata?.agent;
  const result: OpenAIMessage[] = [];
  if (request.system) result.push({ role: 'system', content: request.system });
  // Tool results may only answer this model's own tool calls; others' become plain context.
  const ownToolCallIds = new Set<string>();
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
        result.push({ role: 'system', content: message.content });
        break;
      case 'user':
        result.push({ role: 'user', content: message.content });
        break;
      case 'assistant':
        if (!isOwnTurn(message, agent)) {
          result.push({ role: 'user', content: `[${message.speaker}]: ${message.content}` });
          break;
        }
        for (const call of message.toolCalls ?? []) ownToolCallIds.add(call.id);
        result.push({
          role: 'assistant',
          content: message.content.length > 0 ? message.content : null,
          ...(message.toolCalls && message.toolCalls.length > 0
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: JSON.stringify(call.args) },
                })),
              }
            : {}),
        });
        break;
      case 'tool':
        if (message.toolCallId !== undefined && ownToolCallIds.has(message.toolCallId)) {
          result.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
        } else {
          result.push({
            role: 'user',
            content: `[tool result${message.speaker ? ` for ${message.speaker}` : ''}]: ${message.content}`,
          });
        }
        break;
    }
  }
  return result;
}

export function toOpenAITools(tools: ToolDefinition[] | undefined): OpenAITool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}
