// A waiting session's question asked in the terminal (`conclave --resume <id>` on a waiting
// session, or an agent's `ask_user` during a run): the answer is typed in a text box, checked
// against the question's schema and journaled; an answer that does not fit is refused inline
// and nothing is written. Esc leaves without answering.
import { useInput } from 'ink';
import { useEffect, useReducer, useRef } from 'react';
import type { AnswerOutcome, PendingQuestion } from '../backend/tui-backend.js';
import { errorText } from '../errors/error-hints.js';
import { answerHelp, answerKeys, commandFor, textBoxPresses } from '../keys/key-bindings.js';
import { useScreenSize } from '../theme/theme-context.js';
import { AnswerBox } from './answer-box.js';
import { answerCommandAction, answerDraft, answerReducer, answerText } from './answer-reducer.js';
import { PromptFrame } from './prompt-frame.js';

export interface AnswerPromptInfo {
  question: PendingQuestion;
  /** The session's title, shown in the frame. */
  title: string;
}

/** Journals a typed answer; `{ accepted: false }` keeps the box open with the problem. */
export type SubmitAnswer = (text: string) => Promise<AnswerOutcome>;

export function AnswerPrompt(props: {
  info: AnswerPromptInfo;
  submit: SubmitAnswer;
  /** The answer that was journaled, or null when the user left without answering. */
  onDone: (answer: string | null) => void;
}) {
  const { columns } = useScreenSize();
  const { info, submit, onDone } = props;
  const [draft, dispatch] = useReducer(answerReducer, info.question, (question) => answerDraft(question));
  const submitRef = useRef(submit);
  submitRef.current = submit;
  useInput((input, key) => {
    for (const press of textBoxPresses({ input, key })) {
      const command = commandFor(answerKeys, press);
      if (!command || draft.submitting || draft.accepted) continue;
      const action = answerCommandAction(command);
      if (action.type === 'cancel') return onDone(null);
      dispatch(action);
    }
  });
  const sending = draft.submitting ? answerText(draft) : null;
  useEffect(() => {
    if (sending === null) return;
    let cancelled = false;
    submitRef.current(sending).then(
      (outcome) => {
        if (cancelled) return;
        dispatch(outcome.accepted ? { type: 'accepted' } : { type: 'rejected', problem: outcome.problem });
      },
      (error: unknown) => !cancelled && dispatch({ type: 'rejected', problem: errorText(error) }),
    );
    return () => {
      cancelled = true;
    };
  }, [sending]);
  // Left once the box says so: it stays on screen as the record of the answer.
  const accepted = draft.accepted ? answerText(draft) : null;
  useEffect(() => {
    if (accepted !== null) onDone(accepted);
  }, [accepted, onDone]);
  const width = Math.min(columns, 100) - 4;
  return (
    <PromptFrame
      title={`Session ${info.question.sessionId} "${info.title}" waits for your answer`}
      tone="warning"
      help={answerHelp(Boolean(info.question.choices))}
    >
      <AnswerBox draft={draft} width={width} />
    </PromptFrame>
  );
}
