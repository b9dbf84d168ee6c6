// A waiting session's question asked in the terminal: when `conclave --resume <id>` finds the
// session waiting, and when an agent asks (`ask_user`) during a run. The TUI's answer box
// takes the answer, the engine checks it against the question's schema and journals it with
// who answered (the same path as `conclave answer`); an answer that does not fit is refused
// in the box and nothing is written. Without a terminal the question and the command that
// answers it are printed instead.
import type { UsageTotals } from '@resume/core/engine';
import { whoAmI } from '../commands/answer.js';
import type { CliContext } from '../context/cli-context.js';
import { formatCost, formatTokens } from '../output/format.js';
import { screenIo } from './decisions.js';

/** Whether questions can be asked here: a terminal, and not `--json`. */
export function canAskInTerminal(context: CliContext): boolean {
  return context.environment.interactive && !context.options.json;
}

/** Asks the open question of `sessionId`; true once an answer is journaled, false when none was given. */
export async function answerInTerminal(context: CliContext, sessionId: string): Promise<boolean> {
  const engine = await context.engine();
  const tui = await import('@resume/tui');
  const backend = tui.createEngineBackend({ engine, answeredBy: whoAmI() });
  const question = await backend.loadQuestion(sessionId);
  if (!question) return false;
  const { title } = await engine.readSession(sessionId);
  const answer = await tui.askAnswer(
    { question, title },
    (text) => backend.answerQuestion(sessionId, question.key, text),
    screenIo(context),
  );
  // Nothing is printed here: the live view is back on screen, and the box keeps the answer in view.
  return answer !== null;
}

/** A session left waiting: its question, and how to answer it and go on. */
export function reportWaiting(
  context: CliContext,
  waiting: { sessionId: string; prompt: string; usage: UsageTotals; ran: boolean },
): void {
  const terminal = context.terminal;
  if (!context.options.json) {
    terminal.out();
    terminal.out(`Question: ${waiting.prompt}`);
    if (waiting.ran) {
      terminal.out();
      terminal.out(`Session saved: ${waiting.sessionId}`);
    }
  }
  const usage = `${formatTokens(waiting.usage.inputTokens, waiting.usage.outputTokens)}, ${formatCost(waiting.usage.costUsd)}`;
  terminal.warn(
    `${terminal.yellow('? Waiting for your answer;')} session ${waiting.sessionId} (${usage})${waiting.ran ? '' : '; nothing was run'}.`,
  );
  // Without a terminal the resume prompt cannot be answered: the command carries the go-ahead.
  const goAhead = context.environment.interactive ? '' : ' --yes';
  terminal.warn(
    `Answer with: conclave answer ${waiting.sessionId} "…"  then: conclave --resume ${waiting.sessionId}${goAhead}`,
  );
}
