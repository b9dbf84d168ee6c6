// A map step's work items: where they come from (a list in the spec, a JSON or JSONL file,
// the files a glob matches, an earlier step's JSON output) and each item's stable id, which
// is what its journal keys carry: a resume or an edited list matches items by id, never by
// position.
import { createHash } from 'node:crypto';
import { glob } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, FileNotFoundError, type JsonValue, jsonValueSchema } from '@resume/core/spec';
import { readUserFile, USER_FILE_LIMITS } from '../files/user-file.js';
import { resolveWorkspacePath } from '../files/workspace-path.js';
import { isMapStep, type MapItemsSource, type WorkflowSpec } from './workflow-spec.js';

/** One work item with its stable id and its 0-based position in the list. */
export interface MapItem {
  id: string;
  index: number;
  value: JsonValue;
}

/** Where the items' text came from, for errors (`items.jsonl`, `steps[1].map.items`). */
export interface ItemsOrigin {
  file: string | null;
  key: string;
}

/** Ids that read well as they are (a file path, a slug, a number). */
const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9._/@:+=,~-]{0,119}$/;

function shortHash(text: string, length = 10): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** JSON with keys sorted, so `{a, b}` and `{b, a}` are the same item. */
function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * An item's own id: its `id` field (text or number); else the item itself when it is short
 * plain text or a number (`src/a.ts`, `42`); else `item-<hash of its content>`.
 */
export function ownItemId(value: JsonValue): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const id = value.id;
    if (typeof id === 'string' && id.length > 0) return id;
    if (typeof id === 'number') return String(id);
  }
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string' && PLAIN_ID.test(value)) return value;
  return `item-${shortHash(canonicalJson(value))}`;
}

/** The items with their ids; equal ids get `~2`, `~3` in list order (as step ids do). */
export function identifyItems(values: readonly JsonValue[]): MapItem[] {
  const seen = new Map<string, number>();
  return values.map((value, index) => {
    const own = ownItemId(value);
    const count = (seen.get(own) ?? 0) + 1;
    seen.set(own, count);
    return { id: count === 1 ? own : `${own}~${count}`, index, value };
  });
}

/**
 * How an item id appears in journal keys: one key segment, so the keys stay parseable. A plain
 * id is kept readable with its `/` written `%2F` (`src%2Fa.ts`; `%` is never part of a plain
 * id, so no two ids meet); any other id is hashed. The id itself is data of the item list.
 */
export function itemKeySegment(id: string): string {
  return PLAIN_ID.test(id) ? id.replaceAll('/', '%2F') : `h-${shortHash(id, 12)}`;
}

/** A JSON array, or JSON lines (one value per non-empty line); errors name the line. */
export function parseItemsText(text: string, origin: ItemsOrigin): JsonValue[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  const fail = (problem: string, file: string | null = origin.file): never => {
    throw new ConfigError({
      file,
      key: origin.key,
      problem,
      fix: 'Give the items as a JSON array ([{"id": "a"}, ...]) or as JSON lines (one JSON value per line).',
    });
  };
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      // A JSON array that does not parse may still be JSON lines whose first line is an array.
      if (!trimmed.includes('\n')) return fail(`the items are not valid JSON (${(error as Error).message})`);
      return parseJsonLines(text, origin, fail);
    }
    const items = jsonValueSchema.safeParse(parsed);
    if (!items.success || !Array.isArray(items.data)) return fail('the items are not a JSON array');
    return items.data;
  }
  return parseJsonLines(text, origin, fail);
}

function parseJsonLines(
  text: string,
  origin: ItemsOrigin,
  fail: (problem: string, file?: string | null) => never,
): JsonValue[] {
  const items: JsonValue[] = [];
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    try {
      items.push(JSON.parse(line) as JsonValue);
    } catch (error) {
      const where = origin.file ? `${origin.file}:${index + 1}` : null;
      fail(
        `line ${index + 1} is not JSON (${(error as Error).message}): ${JSON.stringify(line.slice(0, 60))}`,
        where ?? origin.file,
      );
    }
  }
  return items;
}

/** A JSON or JSONL file of the workspace (confined to it: no `..`, no symlink out). */
export async function readItemsFile(workspaceDir: string, file: string, key: string): Promise<JsonValue[]> {
  let resolved: Awaited<ReturnType<typeof resolveWorkspacePath>>;
  try {
    resolved = await resolveWorkspacePath(workspaceDir, file);
  } catch (error) {
    throw new ConfigError({
      file,
      key,
      problem: `the items file cannot be used: ${(error as Error).message}`,
      fix: 'Give a file inside the workspace, relative to it.',
    });
  }
  let text: string;
  try {
    text = readUserFile(resolved.absolute, { what: 'items file', maxBytes: USER_FILE_LIMITS.data });
  } catch (error) {
    if (!FileNotFoundError.isInstance(error)) throw error;
    throw new ConfigError({
      file,
      key,
      problem: `the items file ${file} does not exist in the workspace (${workspaceDir})`,
      fix: 'Create it, or fix the path (relative to the directory the run starts in).',
    });
  }
  return parseItemsText(text, { file, key });
}

/**
 * The files a glob matches in the workspace, sorted, as items `{ id, path, name }` (the
 * path relative to the workspace is the id). Directories and files outside the workspace
 * (through symlinks) are left out.
 */
export async function globItems(workspaceDir: string, pattern: string): Promise<JsonValue[]> {
  const paths: string[] = [];
  for await (const entry of glob(pattern, { cwd: workspaceDir, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const absolute = path.join(entry.parentPath, entry.name);
    const relative = path.relative(workspaceDir, absolute).split(path.sep).join('/');
    if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
    paths.push(relative);
  }
  paths.sort();
  return paths.map((relative) => ({ id: relative, path: relative, name: path.posix.basename(relative) }));
}

export interface ResolveItemsInput {
  source: MapItemsSource;
  workspaceDir: string;
  /** Where the source stands in the spec (`steps[1].map.items`). */
  key: string;
  /** Renders a template source (an earlier step's output). */
  render: (template: string) => string;
}

/** The item values of a source, in order. */
export async function resolveItemValues(input: ResolveItemsInput): Promise<JsonValue[]> {
  const { source } = input;
  if (Array.isArray(source)) return source;
  if ('file' in source) return readItemsFile(input.workspaceDir, source.file, input.key);
  if ('glob' in source) return globItems(input.workspaceDir, source.glob);
  return parseItemsText(input.render(source.template), { file: null, key: input.key });
}

/** What identifies a source in the spec: a changed source (an adopted edit) lists its items again. */
export function itemsSourceHash(source: MapItemsSource): string {
  return shortHash(canonicalJson(source as JsonValue), 8);
}

/** Reads every `items: { file }` source of a spec, so a missing or broken file is refused before the run. */
export async function checkItemFiles(spec: WorkflowSpec, workspaceDir: string): Promise<void> {
  for (const [index, step] of spec.steps.entries()) {
    if (!isMapStep(step)) continue;
    const source = step.map.items;
    if (!Array.isArray(source) && 'file' in source) {
      await readItemsFile(workspaceDir, source.file, `steps[${index}].map.items.file`);
    }
  }
}
