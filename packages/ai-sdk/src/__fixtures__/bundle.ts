// Test support: bundles a TypeScript entry (workspace packages resolved to their sources)
// into one ESM file a child process runs with the project's Node.
import { build } from 'esbuild';

export async function bundle(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    conditions: ['@resume/source'],
    logLevel: 'error',
    // Bundled CommonJS dependencies may call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
}
