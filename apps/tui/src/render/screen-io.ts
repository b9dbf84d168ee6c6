// Where a screen reads keys and writes frames, and how it decides on colour and
// interactivity. Everything comes from the caller (the CLI passes its streams and
// environment), with the process's own as defaults at the entry points only.
import { colorWanted, createTheme } from '../theme/theme.js';
import type { ScreenEnvironment, ScreenSize } from '../theme/theme-context.js';

export interface ScreenIo {
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  /** For NO_COLOR (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** `--no-color`. */
  noColor?: boolean;
  /** Forces interactive (Ink) or plain line mode; default: both stdin and stdout are terminals. */
  interactive?: boolean;
  now?: () => Date;
  /** Pins the screen size (tests). */
  size?: ScreenSize;
}

export interface ResolvedScreenIo {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  interactive: boolean;
  environment: ScreenEnvironment;
}

export function resolveScreenIo(io: ScreenIo = {}): ResolvedScreenIo {
  const stdin = io.stdin ?? process.stdin;
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const interactive = io.interactive ?? Boolean(stdin.isTTY && stdout.isTTY);
  const color = colorWanted({
    env: io.env ?? process.env,
    isTty: interactive || Boolean(stdout.isTTY),
    ...(io.noColor === undefined ? {} : { noColor: io.noColor }),
  });
  const environment: ScreenEnvironment = {
    theme: createTheme({ color }),
    now: io.now ?? (() => new Date()),
    ...(io.size ? { size: io.size } : {}),
  };
  return { stdin, stdout, stderr, interactive, environment };
}
