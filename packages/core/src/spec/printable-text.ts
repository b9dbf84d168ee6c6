// Text that came from a session or from the user (a task, a title, model output, a command's
// output, input quoted in an error) as it may be shown to a person. Such text can carry
// terminal controls: an escape sequence sets the window title or clears the screen, a carriage
// return overwrites what was printed, a bidirectional override makes the text read otherwise
// than it is. Every control is shown, visibly and one for one, instead of acting: C0 controls
// and DEL as their Unicode control pictures (ESC as ␛, BEL as ␇), C1 controls and the
// bidirectional embeddings, overrides and isolates as <U+XXXX>. Nothing is removed, so what is
// shown still says what the session holds; JSON output needs none of this (it escapes them).

/**
 * `line`: one line (a title in a list): newlines and tabs are shown too (␊, ␉).
 * `lines`: multi-line text (a transcript): newlines and tabs stay, a CRLF reads as a newline.
 */
export type PrintableLayout = 'line' | 'lines';

// C0 except tab and newline, DEL, C1, the bidi embeddings and overrides (U+202A-E), isolates (U+2066-9).
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const CONTROLS_AND_LINE_BREAKS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function picture(control: string): string {
  const code = control.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** `text` with every terminal control shown visibly instead of acting (see the header). */
export function printableText(text: string, layout: PrintableLayout = 'line'): string {
  // Most text has no control at all: one test, no copy.
  if (!ANY_CONTROL.test(text)) return text;
  if (layout === 'line') return text.replace(CONTROLS_AND_LINE_BREAKS, picture);
  return text.replace(/\r\n/g, '\n').replace(CONTROLS, picture);
}
