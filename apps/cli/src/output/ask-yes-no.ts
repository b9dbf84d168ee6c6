// A one-line yes/no question in the terminal, without loading the TUI: the answer is read
// from standard input, and anything but "y" or "yes" (Enter included) is no.
import { createInterface } from 'node:readline/promises';
import { printableText } from '@resume/core/spec';

export async function askYesNo(output: { write(text: string): unknown }, question: string): Promise<boolean> {
  const reader = createInterface({ input: process.stdin, terminal: false });
  try {
    output.write(printableText(question, 'line'));
    const answer = await reader.question('');
    return /^(y|yes)$/i.test(answer.trim());
  } finally {
    reader.close();
  }
}
