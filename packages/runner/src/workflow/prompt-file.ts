// `.prompt.md` files (the dotnet-prompt format): YAML front matter plus a markdown body
// that becomes the task of an orchestrated agent.

import { lazySchema } from '@resume/core/lazy-schema';
import { ConfigError } from '@resume/core/spec';
import { z } from 'zod';
import { formatIssuePath } from './issue-path.js';
import { type TemplateLocation, templateReferences } from './template.js';
import { readYamlData } from './yaml-error.js';

const frontMatterPattern = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

// Loose: prompt files written for other tools carry keys we do not use; they are kept, not refused.
// Built on first use: a workflow run loads this module with the runner and never parses a prompt file.
export const promptFrontMatterSchema = lazySchema(() =>
  z.looseObject({
    name: z.string().min(1).optional(),
    description: z.string().optional(),
    model: z.string().min(1).optional(),
    provider: z.string().min(1).optional(),
    tools: z.array(z.string().min(1)).default([]),
    /** MCP servers (`mcp.servers` in the config) whose tools the agent may call, as `<server>__<tool>`. */
    mcp: z.array(z.string().min(1)).default([]),
    /** Upper bound on model turns (each turn may call tools). */
    max_iterations: z.number().int().min(1).max(1000).optional(),
    variables: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String)).default({}),
  }),
);

export type PromptFrontMatter = z.infer<typeof promptFrontMatterSchema>;

export interface PromptFile {
  frontMatter: PromptFrontMatter;
  /** The markdown body, trimmed; the agent's task. */
  body: string;
}

export function parsePromptFile(text: string, file: string | null): PromptFile {
  const match = frontMatterPattern.exec(text);
  let raw: unknown = {};
  if (match) {
    raw =
      readYamlData(match[1] ?? '', {
        file,
        key: 'front matter',
        // Front matter starts after the opening --- line: its line 1 is line 2 of the file.
        lineOffset: 1,
        syntaxFix: 'Fix the YAML between the --- lines.',
        aliasFix: 'Fix the YAML anchors and aliases (&name, *name) between the --- lines.',
      }) ?? {};
  }
  const result = promptFrontMatterSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ConfigError({
      file,
      key: `front matter ${formatIssuePath(issue?.path ?? [])}`,
      problem: issue?.message ?? 'invalid front matter',
      fix: 'Front matter keys: name, description, model, provider, tools (a list), mcp (a list of servers), max_iterations, variables.',
    });
  }
  const body = (match ? text.slice(match[0].length) : text).trim();
  if (body === '') {
    throw new ConfigError({
      file,
      key: 'body',
      problem: 'the prompt file has no instructions',
      fix: 'Write the task below the front matter.',
    });
  }
  const location: TemplateLocation = { file, key: 'body' };
  for (const reference of templateReferences(body, location)) {
    if (reference.kind !== 'variable') {
      throw new ConfigError({
        file,
        key: 'body',
        problem: 'a prompt file body may use only variables in {{ }}',
        fix: 'Declare them under variables: in the front matter.',
      });
    }
  }
  return { frontMatter: result.data, body };
}
