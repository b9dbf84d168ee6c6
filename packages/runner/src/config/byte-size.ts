// Sizes as people write them in the config: `500MB`, `20GB`, `1.5TiB`, `800 KB` (a bare number
// is bytes). A unit counts in powers of 1024 whether written `GB` or `GiB`, as Conclave prints
// sizes (`sessions du`, the space-limit messages), so a limit reads back as it was written.
const sizePattern = /^(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)?$/i;
const powerOf: Record<string, number> = { b: 0, k: 1, m: 2, g: 3, t: 4 };

/** Bytes (a whole number above 0), or null when the text is not a size. */
export function parseByteSize(value: string | number): number | null {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = sizePattern.exec(text);
  if (!match) return null;
  const power = powerOf[(match[2] ?? 'b').charAt(0).toLowerCase()] ?? 0;
  const bytes = Math.round(Number(match[1]) * 1024 ** power);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : null;
}

export const BYTE_SIZE_FORM = 'a size such as 500MB, 20GB or 1.5TiB (a bare number is bytes)';
