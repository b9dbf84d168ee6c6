// Where the CLI writes and how it colours. Results go to stdout (so `--json` output
// pipes cleanly); progress, notes and errors go to stderr. Colour only on a terminal,
// never with NO_COLOR or --no-color.

export interface OutputStreams {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

export interface Terminal {
  readonly color: boolean;
  readonly quiet: boolean;
  /** A result line on stdout. */
  out(text?: string): void;
  /** A note or progress line on stderr (suppressed by --quiet). */
  note(text?: string): void;
  /** A warning or error line on stderr (never suppressed). */
  warn(text?: string): void;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function createTerminal(
  streams: OutputStreams,
  options: { color: boolean | undefined; quiet: boolean; env: Readonly<Record<string, string | undefined>> },
): Terminal {
  const color =
    options.color !== false &&
    !('NO_COLOR' in options.env && options.env.NO_COLOR !== '') &&
    (options.env.FORCE_COLOR ? options.env.FORCE_COLOR !== '0' : Boolean(streams.stderr.isTTY));
  const paint = (open: number, close: number) => (text: string) =>
    color ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    color,
    quiet: options.quiet,
    out: (text = '') => streams.stdout.write(`${text}\n`),
    note: (text = '') => {
      if (!options.quiet) streams.stderr.write(`${text}\n`);
    },
    warn: (text = '') => streams.stderr.write(`${text}\n`),
    bold: paint(1, 22),
    dim: paint(2, 22),
    red: paint(31, 39),
    green: paint(32, 39),
    yellow: paint(33, 39),
    cyan: paint(36, 39),
  };
}
