// Line-mode questions for when there is no terminal (piped input, CI): the question
// is written as plain text and one line is read. End of input is "no answer".
import { createInterface } from 'node:readline';
import { printableText } from '@resume/core/spec';

/** Plain output: the session's text in it (titles, paths, questions) with its controls shown (printableText). */
export function writePlain(stdout: NodeJS.WritableStream, text: string): void {
  stdout.write(printableText(text, 'lines'));
}

export async function askLine(
  stdin: NodeJS.ReadableStream,
  stdout: NodeJS.WritableStream,
  question: string,
): Promise<string | null> {
  const lines = createInterface({ input: stdin, terminal: false });
  writePlain(stdout, question);
  try {
    return await new Promise<string | null>((resolve) => {
      lines.once('line', (line) => resolve(line.trim()));
      lines.once('close', () => resolve(null));
    });
  } finally {
    lines.close();
    stdout.write('\n');
  }
}
