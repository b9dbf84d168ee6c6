// How a YAML syntax error reads in a ConfigError: the file with its line (`spec.yaml:4`) and
// the parser's first sentence without its trailing "at line N, column M:", which introduces a
// code excerpt a one-line message cannot show.
import type { YAMLError } from 'yaml';

/** `lineOffset`: lines of the file before the parsed text (front matter starts after `---`). */
export function describeYamlError(
  error: YAMLError,
  file: string | null,
  lineOffset = 0,
): { file: string | null; problem: string } {
  const parsedLine = error.linePos?.[0]?.line;
  const line = parsedLine === undefined ? undefined : parsedLine + lineOffset;
  const sentence = (error.message.split('\n')[0] ?? '')
    .replace(/\s+at line \d+, column \d+:?\s*$/, '')
    .replace(/:$/, '');
  return { file: file && line ? `${file}:${line}` : file, problem: `not valid YAML: ${sentence}` };
}
