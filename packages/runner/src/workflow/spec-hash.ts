// The hash journaled with every spec text (task, project, workflow, prompt), compared on resume.
import { createHash } from 'node:crypto';

export function hashText(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
