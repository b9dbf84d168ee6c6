// A child process for the test of bundleChild's `empty` modules: imports a package that is not
// installed (as Ink imports React's devtools) and prints what it got, then its directory.
// @ts-expect-error: not installed, on purpose; the bundle replaces it with an empty module.
import missing from 'conclave-not-installed';

process.stdout.write(`missing=${JSON.stringify(missing)}\n`);
process.stdout.write(`cwd=${process.cwd()}\n`);
