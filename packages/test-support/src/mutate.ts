// A value damaged in one place, for checks tested against the schemas they were generated from.

/** Replaces, adds or removes one value somewhere inside `value`. */
export function mutate(value: unknown, path: number[], replacement: unknown, operation: number): unknown {
  if (typeof value !== 'object' || value === null) return replacement;
  const copy: Record<string, unknown> = Array.isArray(value) ? ({ ...value } as Record<string, unknown>) : { ...value };
  const keys = Object.keys(copy);
  const step = path[0];
  if (step === undefined || keys.length === 0) {
    if (operation === 0) copy[`extra${keys.length}`] = replacement;
    else if (keys.length > 0) delete copy[keys[0] as string];
    return Array.isArray(value) ? Object.values(copy) : copy;
  }
  const key = keys[step % keys.length] as string;
  copy[key] =
    path.length === 1 && operation === 2 ? replacement : mutate(copy[key], path.slice(1), replacement, operation);
  return Array.isArray(value) ? Object.values(copy) : copy;
}
