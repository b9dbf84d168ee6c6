// `ask_user`: the orchestrated agent asks the person a question. The question is journaled
// with `session.waitFor`: the run ends with the session `waiting` (or, in a terminal, the
// CLI asks it inline), and once answered (`conclave answer`, the TUI, `engine.respond`) the
// resumed run hands the answer to the model as the tool's result.
import type { JsonValue } from '@resume/core/spec';
import { z } from 'zod';
import type { ModeTool, ToolOutcome } from './mode-context.js';

export const ASK_USER_TOOL = 'ask_user';

const askUserArgumentsSchema = z.object({ question: z.string().min(1) });

export function askUserTool(): ModeTool {
  return {
    definition: {
      name: ASK_USER_TOOL,
      description:
        'Ask the user a question and wait for the answer. Use it when you need a decision or information only the user has; the session pauses until they answer.',
      parameters: {
        type: 'object',
        properties: { question: { type: 'string', description: 'The question, as the user should read it' } },
        required: ['question'],
        additionalProperties: false,
      },
    },
    safety: 'idempotent',
    asksUser: true,
    async execute(): Promise<ToolOutcome> {
      return { content: 'ask_user is answered by the user, not executed.', isError: true };
    },
  };
}

/** The question an `ask_user` call asks, or null when the model's arguments do not have one. */
export function questionOf(args: JsonValue): string | null {
  const parsed = askUserArgumentsSchema.safeParse(args);
  return parsed.success ? parsed.data.question : null;
}
