// Where the CLI writes and how it colours. Results go to stdout (so `--json` output
// pipes cleanly); progress, notes and errors go to stderr. Colour only on a terminal,
// never with NO_COLOR or --no-color. Every human line passes through `printableText`: a
// title, a model's output, a command's output or input quoted in an error may carry controls
// (an escape sequence that sets the window title or clears the screen, a bidi override), and
// they are shown (␛, <U+202E>) instead of acting; only the terminal's own colours act. JSON
// goes out exactly as given (`data`): it escapes control characters itself.
import { printableText } from '@resume/core/spec';

export interface OutputStreams {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

export interface Terminal {
  readonly color: boolean;
  readonly quiet: boolean;
  /** A result line on stdout. */
  out(text?: string): void;
  /** Machine-readable output (JSON) on stdout, written exactly as given. */
  data(text: string): void;
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
  const shown = (text: string) => `${color ? printableStyled(text) : printableText(text, 'lines')}\n`;
  return {
    color,
    quiet: options.quiet,
    out: (text = '') => streams.stdout.write(shown(text)),
    data: (text) => streams.stdout.write(`${text}\n`),
    note: (text = '') => {
      if (!options.quiet) streams.stderr.write(shown(text));
    },
    warn: (text = '') => streams.stderr.write(shown(text)),
    bold: paint(1, 22),
    dim: paint(2, 22),
    red: paint(31, 39),
    green: paint(32, 39),
    yellow: paint(33, 39),
    cyan: paint(36, 39),
  };
}

/** The colours `paint` writes (bold, dim, red, green, yellow, cyan and their resets); nothing else acts. */
const OWN_STYLES = /\u001b\[(?:1|2|22|31|32|33|36|39)m/g;

/** A coloured line made printable around the terminal's own colour sequences. */
function printableStyled(text: string): string {
  let result = '';
  let from = 0;
  for (const style of text.matchAll(OWN_STYLES)) {
    result += printableText(text.slice(from, style.index), 'lines') + style[0];
    from = style.index + style[0].length;
  }
  return result + printableText(text.slice(from), 'lines');
}
