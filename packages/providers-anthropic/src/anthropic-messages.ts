// Maps Conclave's multi-agent transcript onto the Messages API: `system` goes top-level;
// the model's own turns stay `assistant` (text + tool_use blocks); other agents' turns become
// `user` text prefixed `[<speaker>]: `; tool results become `tool_result` blocks; consecutive
// same-role messages are merged because the API requires user and assistant to alternate.

import type Anthropic from '@anthropic-ai/sdk';
import type { ChatMessage, GenerateRequest, ToolDefinition } from '@resume/core/spec';

type Block = Anthropic.Messages.ContentBlockParam;
type AnthropicMessage = { role: 'user' | 'assistant'; content: string | Block[] };

function isOwnTurn(message: ChatMessage, agent: string | undefined): boolean {
  return message.speaker === undefined || message.speaker === null || agent === undefined || message.speaker === agent;
}

const text = (value: string): Block => ({ type: 'text', text: value });

export interface AnthropicRequestParts {
  system: string | undefined;
  messages: AnthropicMessage[];
}

export function toAnthropicMessages(request: GenerateRequest): AnthropicRequestParts {
  const agent = request.metadata?.agent;
  const systemParts = request.system ? [request.system] : [];
  const turns: Array<{ role: 'user' | 'assistant'; blocks: Block[] }> = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last && last.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks: [...blocks] });
  };
  const ownToolCallIds = new Set<string>();

  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
        // Leading system messages join the system prompt; later ones keep their place as context.
        if (turns.length === 0) systemParts.push(message.content);
        else push('user', [text(`[system]: ${message.content}`)]);
        break;
      case 'user':
        if (message.content.length > 0) push('user', [text(message.content)]);
        break;
      case 'assistant': {
        if (!isOwnTurn(message, agent)) {
          push('user', [text(`[${message.speaker}]: ${message.content}`)]);
          break;
        }
        const blocks: Block[] = message.content.length > 0 ? [text(message.content)] : [];
        for (const call of message.toolCalls ?? []) {
          ownToolCallIds.add(call.id);
          blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.args });
        }
        push('assistant', blocks);
        break;
      }
      case 'tool':
        if (message.toolCallId !== undefined && ownToolCallIds.has(message.toolCallId)) {
          push('user', [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }]);
        } else {
          push('user', [text(`[tool result]: ${message.content}`)]);
        }
        break;
    }
  }
  // The API wants the conversation to open with a user turn.
  if (turns[0]?.role !== 'user') turns.unshift({ role: 'user', blocks: [text('[conversation start]')] });

  return {
    system: systemParts.length > 0 ? systemParts.join('\n\n') : undefined,
    messages: turns.map(({ role, blocks }) => {
      const [only] = blocks;
      return { role, content: blocks.length === 1 && only?.type === 'text' ? only.text : blocks };
    }),
  };
}

export function toAnthropicTools(tools: ToolDefinition[] | undefined): Anthropic.Messages.Tool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { type: 'object', ...tool.parameters } as Anthropic.Messages.Tool.InputSchema,
  }));
}
