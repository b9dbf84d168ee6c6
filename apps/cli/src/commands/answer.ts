// `conclave answer <id> "..."`: answers the question a waiting session asks (an agent's
// ask_user, or `session.waitFor` in a program), journaled with who answered and when. The
// answer is text; a question whose schema expects JSON (a number, an object) takes it as JSON.
import { hostname, userInfo } from 'node:os';
import { answerFromText, pendingInput } from '@resume/core/engine';
import { UsageError } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';
import { truncate } from '../output/format.js';
import { resolveSession } from '../sessions/resolve-session.js';
import { shortIdsOfStore } from '../sessions/short-ids.js';

export async function answerCommand(
  context: CliContext,
  input: { reference: string; answer: string | undefined; by: string | undefined },
): Promise<number> {
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  const state = await engine.readSession(id);
  const question = pendingInput(state);
  if (!question) {
    throw new UsageError(`Session ${id} is not waiting for an answer (it is ${state.status}).`, {
      hint: 'Waiting sessions are listed with: conclave sessions list --status waiting',
    });
  }
  if (input.answer === undefined) {
    // Without an answer: say what is asked.
    if (context.options.json) {
      context.terminal.data(JSON.stringify({ sessionId: id, key: question.key, prompt: question.prompt }));
    } else {
      context.terminal.out(question.prompt);
      context.terminal.note(context.terminal.dim(`Answer with: conclave answer ${id} "…"`));
    }
    return 0;
  }
  const value = answerFromText(question.schema, input.answer);
  await engine.respond(id, question.key, value, { answeredBy: input.by ?? whoAmI() });
  const shortId = await shortIdsOfStore(context, [id]);
  if (context.options.json) {
    context.terminal.data(JSON.stringify({ sessionId: id, key: question.key, answered: true }));
  } else {
    context.terminal.note(`✓ Answered "${truncate(question.prompt, 80)}" of session ${id}.`);
    // Without a terminal the resume prompt cannot be answered: the command carries the go-ahead.
    const goAhead = context.environment.interactive ? '' : ' --yes';
    context.terminal.note(`Continue it with: conclave --resume ${shortId(id)}${goAhead}`);
  }
  return 0;
}

/** Who answers by default: the user and machine. */
export function whoAmI(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return hostname();
  }
}
