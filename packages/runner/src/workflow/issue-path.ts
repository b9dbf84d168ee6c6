// Turns a zod issue path into the way a user finds the spot in their YAML: `steps[2].retry.attempts`.
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text || '(top level)';
}
