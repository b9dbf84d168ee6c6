// A child process for the test of bundleChild: prints each argument on a line, then the
// value of CONCLAVE_CHILD_WORD, and exits with the code it was given after `--exit`.
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const exitAt = args.indexOf('--exit');
const words = exitAt === -1 ? args : args.slice(0, exitAt);
for (const word of words) process.stdout.write(`${word}\n`);
process.stdout.write(`word=${process.env.CONCLAVE_CHILD_WORD ?? '(unset)'}\n`);
// A bundled CommonJS dependency would call require(): the bundle provides one.
process.stdout.write(`require=${typeof createRequire(import.meta.url)}\n`);
process.exitCode = exitAt === -1 ? 0 : Number(args[exitAt + 1]);
