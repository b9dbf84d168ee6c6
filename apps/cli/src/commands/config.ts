// `conclave config`: the effective configuration and where each value came from.
import type { CliContext } from '../context/cli-context.js';
import { maskCredentialsIn } from '../output/mask-credentials.js';

export async function showConfigCommand(context: CliContext): Promise<number> {
  // A store URL's password (from --store, CONCLAVE_STORE_URL or a file) is shown as ***.
  const effective = context.config();
  const { config, sources, files } = maskCredentialsIn(effective);
  if (context.options.json) {
    context.terminal.data(JSON.stringify({ config, sources, files }, null, 2));
    return 0;
  }
  const terminal = context.terminal;
  terminal.out(
    files.length === 0
      ? terminal.dim('No config file found; using the defaults.')
      : `Config files: ${files.join(', ')}`,
  );
  const rows = flatten(config as unknown as Record<string, unknown>);
  const width = Math.max(...rows.map(([key]) => key.length));
  for (const [key, value] of rows) {
    const source = sources[key] ?? sourceOfParent(key, sources) ?? 'default';
    terminal.out(`${key.padEnd(width)}  ${JSON.stringify(value)}  ${terminal.dim(`(${source})`)}`);
  }
  return 0;
}

function flatten(value: Record<string, unknown>, prefix = ''): [string, unknown][] {
  const rows: [string, unknown][] = [];
  for (const [key, item] of Object.entries(value)) {
    const dotted = prefix ? `${prefix}.${key}` : key;
    if (typeof item === 'object' && item !== null && !Array.isArray(item) && Object.keys(item).length > 0)
      rows.push(...flatten(item as Record<string, unknown>, dotted));
    else rows.push([dotted, item]);
  }
  return rows;
}

function sourceOfParent(key: string, sources: Record<string, string>): string | undefined {
  const parts = key.split('.');
  for (let length = parts.length - 1; length > 0; length -= 1) {
    const source = sources[parts.slice(0, length).join('.')];
    if (source) return source;
  }
  return undefined;
}
