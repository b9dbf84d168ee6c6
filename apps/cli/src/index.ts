// `@resume/cli`: the `conclave` command line. The executable is `dist/conclave.mjs`;
// this entry lets other tools run the CLI in-process with an injected environment.
export { runCli } from './cli.js';
export type { CliEnvironment } from './context/cli-context.js';
