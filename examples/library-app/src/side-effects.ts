// What the outside world sees of the job: every call of a step function, and every consent to
// run an unsafe step again, appends one line to a marker file. A crash cannot take these back,
// so they show how often each piece of work really ran.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface SideEffects {
  /** A step function ran (its work is done when this returns). */
  ran(step: string, detail?: string): void;
  /** The job agreed to run an unsafe step again after a crash left it uncertain. */
  consented(step: string): void;
}

export function markerFiles(directory: string): SideEffects {
  const mark = (file: string, line: string) => appendFileSync(path.join(directory, file), `${line}\n`);
  return {
    ran: (step, detail = '') => mark(`${step}.ran`, `${process.pid} ${detail}`.trim()),
    consented: (step) => mark(`${step}.consent`, String(process.pid)),
  };
}

/** The lines of one marker file (none when the work never ran). */
export function markerLines(directory: string, file: string): string[] {
  const full = path.join(directory, file);
  return existsSync(full) ? readFileSync(full, 'utf8').split('\n').filter(Boolean) : [];
}
