// How a status reason names a question a session asked: by its text, never by the step's internal key.
/** A question as a status reason names it: its first line, quoted, at most 80 characters. */
export function quotedQuestion(prompt: string): string {
  const line = prompt.split('\n')[0]?.trim() ?? '';
  return `"${line.length > 80 ? `${line.slice(0, 79)}…` : line}"`;
}
