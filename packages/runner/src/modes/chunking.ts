// Splits a project file into chunks for the iterative mode: by size, on paragraph
// boundaries, so an agent never sees half a paragraph unless one paragraph alone is too big.

/** Chunks of at most `maxChars` characters; concatenated they give back the text exactly. */
export function splitIntoChunks(text: string, maxChars: number): string[] {
  if (maxChars < 1) throw new RangeError('maxChars must be at least 1');
  // Each piece keeps its trailing blank lines, so joining the chunks restores the text.
  const paragraphs = text.match(/[\s\S]*?(?:\n[ \t]*\n\s*|$)/g)?.filter((piece) => piece !== '') ?? [];
  const chunks: string[] = [];
  let current = '';
  const push = () => {
    if (current !== '') chunks.push(current);
    current = '';
  };
  for (const paragraph of paragraphs) {
    if (current.length + paragraph.length <= maxChars) {
      current += paragraph;
      continue;
    }
    push();
    if (paragraph.length <= maxChars) {
      current = paragraph;
      continue;
    }
    for (const piece of splitLongParagraph(paragraph, maxChars)) {
      if (current.length + piece.length > maxChars) push();
      current += piece;
    }
  }
  push();
  return chunks;
}

/** A paragraph too long for one chunk: break after lines, then sentences, then hard. */
function splitLongParagraph(paragraph: string, maxChars: number): string[] {
  const pieces = paragraph.match(/[^\n.!?]*(?:[\n.!?]+|$)/g)?.filter((piece) => piece !== '') ?? [paragraph];
  return pieces.flatMap((piece) => {
    if (piece.length <= maxChars) return [piece];
    const parts: string[] = [];
    for (let index = 0; index < piece.length; index += maxChars) parts.push(piece.slice(index, index + maxChars));
    return parts;
  });
}
