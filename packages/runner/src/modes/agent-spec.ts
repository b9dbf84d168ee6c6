// Who speaks in a run: the agents of a mode, as recorded in the session's options so a
// resume uses the same ones (docs/architecture.md#resume-and-continue).
import { lazySchema } from '@resume/core/lazy-schema';
import { z } from 'zod';

export const agentSpecSchema = lazySchema(() =>
  z.object({
    name: z.string().min(1),
    provider: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    systemPrompt: z.string(),
  }),
);
export type AgentSpec = z.infer<typeof agentSpecSchema>;

/** The default discussion panel: three distinct roles so the rounds have something to settle. */
export const defaultDiscussionAgents: AgentSpec[] = [
  {
    name: 'architect',
    systemPrompt:
      'You are the architect. Propose a concrete, well-structured solution and explain the main design choices.',
  },
  {
    name: 'critic',
    systemPrompt:
      'You are the critic. Find the weaknesses, risks and missing cases in what has been proposed, and say how to fix them.',
  },
  {
    name: 'pragmatist',
    systemPrompt:
      'You are the pragmatist. Weigh cost, effort and what can ship first; push the group toward a decision.',
  },
];

export const defaultJudge: AgentSpec = {
  name: 'judge',
  systemPrompt:
    'You are the judge of a panel discussion. You decide whether the panel agrees and, when it does, you write the final solution.',
};

export const defaultLead: AgentSpec = {
  name: 'lead',
  systemPrompt:
    'You are the lead agent. Work in the workspace with the tools you have; when the task is done, answer with a summary and no tool calls.',
};

/** Agents for `--models a,b`: one per model, keeping the default roles in turn. */
export function agentsForModels(models: string[], provider?: string): AgentSpec[] {
  return models.map((model, index) => {
    const role = defaultDiscussionAgents[index % defaultDiscussionAgents.length] ?? defaultDiscussionAgents[0]!;
    const name = index < defaultDiscussionAgents.length ? role.name : `${role.name}-${index + 1}`;
    return { ...role, name, model, ...(provider ? { provider } : {}) };
  });
}
