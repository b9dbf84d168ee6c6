// Which modules a CLI process loads: a module for `NODE_OPTIONS=--import=…` that logs every
// module the process resolves (built-ins included), for tests that a command leaves some unloaded.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes the logging module under `root`; `env` turns it on for a run, `read` gives what was resolved. */
export async function moduleLoadLog(
  root: string,
): Promise<{ env: { NODE_OPTIONS: string }; read: () => Promise<string> }> {
  const loaded = path.join(root, 'loaded.txt');
  const hook = path.join(root, 'log-loads.mjs');
  await writeFile(
    hook,
    [
      "import { appendFileSync } from 'node:fs';",
      "import { registerHooks } from 'node:module';",
      'registerHooks({',
      '  resolve(specifier, context, next) {',
      '    const resolved = next(specifier, context);',
      `    appendFileSync(${JSON.stringify(loaded)}, resolved.url + '\\n');`,
      '    return resolved;',
      '  },',
      '});',
      '',
    ].join('\n'),
  );
  return { env: { NODE_OPTIONS: `--import=${hook}` }, read: () => readFile(loaded, 'utf8') };
}
