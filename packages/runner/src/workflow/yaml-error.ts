// Reading the YAML of workflow specs, prompt front matter and config files, and how its
// errors read in a ConfigError: the file with its line (`spec.yaml:4`) and the parser's first
// sentence without its trailing "at line N, column M:", which introduces a code excerpt a
// one-line message cannot show.

import { ConfigError } from '@resume/core/spec';
import { parseDocument, type YAMLError } from 'yaml';

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

export interface YamlSource {
  file: string | null;
  /** Where in the file the text is, for errors (null: the whole file). */
  key: string | null;
  /** Lines of the file before the text. */
  lineOffset?: number;
  /** What to do about a syntax error, and about an unknown anchor or an alias bomb. */
  syntaxFix: string;
  aliasFix: string;
  /** How a syntax error reads (default `describeYamlError`). */
  describeSyntaxError?: (
    error: YAMLError,
    file: string | null,
    lineOffset: number,
  ) => ReturnType<typeof describeYamlError>;
}

/** The data a YAML text holds (undefined or null for an empty one), or a ConfigError saying where it is broken. */
export function readYamlData(text: string, source: YamlSource): unknown {
  const document = parseDocument(text, { prettyErrors: true });
  const syntaxError = document.errors[0];
  if (syntaxError) {
    const describe = source.describeSyntaxError ?? describeYamlError;
    throw new ConfigError({
      ...describe(syntaxError, source.file, source.lineOffset ?? 0),
      key: source.key,
      fix: source.syntaxFix,
    });
  }
  try {
    return document.toJS();
  } catch (error) {
    // Aliases are resolved only here: an unknown anchor or an alias bomb is a YAML error too.
    throw new ConfigError({
      file: source.file,
      key: source.key,
      problem: `not valid YAML (${(error as Error).message})`,
      fix: source.aliasFix,
    });
  }
}
