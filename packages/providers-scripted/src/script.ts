// Script files (`--script <file.yaml>`): a list of turns the scripted models play in order,
// so tool-using modes can be driven offline. Validated with zod; errors name the file and turn.
import { readFileSync } from 'node:fs';
import { lazySchema } from '@resume/core/lazy-schema';
import { ConfigError, jsonValueSchema } from '@resume/core/spec';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

export const scriptToolCallSchema = lazySchema(() =>
  z.object({
    name: z.string().min(1),
    args: z.record(z.string(), jsonValueSchema).default({}),
  }),
);

export const scriptTurnSchema = lazySchema(() =>
  z
    .object({
      /** The agent that plays this turn; without it, the next participant to speak (never the judge). */
      agent: z.string().min(1).optional(),
      text: z.string().optional(),
      tool_calls: z.array(scriptToolCallSchema).optional(),
    })
    .strict()
    .refine((turn) => turn.text !== undefined || (turn.tool_calls !== undefined && turn.tool_calls.length > 0), {
      message: 'a turn needs `text`, `tool_calls`, or both',
    }),
);

export type ScriptTurn = z.input<typeof scriptTurnSchema>;
export type ParsedScriptTurn = z.output<typeof scriptTurnSchema>;

export const scriptSchema = lazySchema(() => z.array(scriptTurnSchema));

/** Validates turns given in code or parsed from a file; `source` names where they came from in errors. */
export function parseScript(value: unknown, source: string | null = null): ParsedScriptTurn[] {
  const result = scriptSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const [index, ...rest] = issue?.path ?? [];
  const key = typeof index === 'number' ? `turn ${index + 1}${rest.length > 0 ? ` (${rest.join('.')})` : ''}` : null;
  throw new ConfigError({
    file: source,
    key,
    problem: Array.isArray(value) ? (issue?.message ?? 'invalid turn') : 'a script is a list of turns',
    fix: 'Each turn looks like `- { agent: lead, text: "...", tool_calls: [{ name: read_file, args: { path: a.txt } }] }`.',
  });
}

/** Reads and validates a YAML script file. */
export function loadScript(path: string): ParsedScriptTurn[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      { file: path, key: null, problem: 'the script file cannot be read', fix: 'Check the path given to --script.' },
      { cause: error },
    );
  }
  return parseScriptText(text, path);
}

/** Validates a YAML script's text; `path` names the file in errors. */
export function parseScriptText(text: string, path: string): ParsedScriptTurn[] {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : 'invalid YAML';
    throw new ConfigError({ file: path, key: null, problem: `not valid YAML: ${detail}` }, { cause: error });
  }
  return parseScript(document ?? [], path);
}
