// Splits a command line into argv without a shell. Commands run without a shell, so the
// allow-list on the first word means what it says: `npm test; rm -rf ~` is refused
// instead of running two commands.
import { WorkspaceToolError } from './workspace-tool-error.js';

const SHELL_OPERATORS = new Set([';', '|', '&', '>', '<', '`', '$', '(', ')', '\n']);

/** Words of a command line: whitespace separates, single and double quotes group, backslash escapes. */
export function splitCommandLine(commandLine: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let index = 0; index < commandLine.length; index += 1) {
    const character = commandLine[index] as string;
    if (quote === "'") {
      if (character === "'") quote = null;
      else current += character;
      continue;
    }
    if (quote === '"') {
      if (character === '"') quote = null;
      else if (character === '\\' && index + 1 < commandLine.length) {
        index += 1;
        current += commandLine[index];
      } else if (character === '$' || character === '`') {
        throw refused(commandLine, character);
      } else current += character;
      continue;
    }
    if (character === "'" || character === '"') {
      quote = character;
      inWord = true;
    } else if (character === '\\' && index + 1 < commandLine.length) {
      index += 1;
      current += commandLine[index];
      inWord = true;
    } else if (character === ' ' || character === '\t') {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else if (SHELL_OPERATORS.has(character)) {
      throw refused(commandLine, character);
    } else {
      current += character;
      inWord = true;
    }
  }
  if (quote !== null) {
    throw new WorkspaceToolError(
      'invalid-arguments',
      `The command ${JSON.stringify(commandLine)} has an unclosed quote.`,
    );
  }
  if (inWord) words.push(current);
  return words;
}

function refused(commandLine: string, character: string): WorkspaceToolError {
  return new WorkspaceToolError(
    'command-refused',
    `The command ${JSON.stringify(commandLine)} uses the shell operator ${JSON.stringify(character)}; commands run without a shell, one at a time.`,
    { hint: 'Run one command per call, without pipes, redirections, substitutions or `;`.' },
  );
}
