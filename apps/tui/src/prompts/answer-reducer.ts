// The answer being typed to a waiting session's question (the picker's answer box and the
// question asked inline): the text, the choices of a closed question, the problem with the
// last answer sent, and whether one is on its way. Pure, tested without rendering.
import type { PendingQuestion } from '../backend/tui-backend.js';
import type { AnswerInputCommand } from '../keys/key-bindings.js';
import {
  emptyTextInput,
  type TextInputAction,
  type TextInputState,
  textInputAction,
  textInputReducer,
} from './text-input-reducer.js';

export interface AnswerDraft {
  question: PendingQuestion;
  /** The question was read from the journal (its hint and choices are known). */
  loaded: boolean;
  input: TextInputState;
  /** Why the last answer was not taken (nothing was written), or why it cannot be sent yet. */
  problem: string | null;
  /** The answer is being journaled; keys wait. */
  submitting: boolean;
  /** The answer was journaled. */
  accepted: boolean;
}

export type AnswerAction =
  | { type: 'question-loaded'; question: PendingQuestion }
  | { type: 'edited'; edit: TextInputAction }
  | { type: 'choice-cycled'; by: number }
  | { type: 'submitted' }
  | { type: 'rejected'; problem: string }
  | { type: 'accepted' };

export const emptyAnswerProblem = 'Type an answer first (Esc leaves without answering).';

export function answerDraft(question: PendingQuestion, loaded = true): AnswerDraft {
  return { question, loaded, input: emptyTextInput, problem: null, submitting: false, accepted: false };
}

/** The text to send: what was typed, without the spaces around it. */
export function answerText(draft: AnswerDraft): string {
  return draft.input.text.trim();
}

export function answerReducer(draft: AnswerDraft, action: AnswerAction): AnswerDraft {
  switch (action.type) {
    case 'question-loaded':
      return { ...draft, question: action.question, loaded: true };
    case 'edited':
      if (draft.submitting || draft.accepted) return draft;
      return { ...draft, input: textInputReducer(draft.input, action.edit), problem: null };
    case 'choice-cycled': {
      const choices = draft.question.choices;
      if (draft.submitting || draft.accepted || !choices || choices.length === 0) return draft;
      const current = choices.indexOf(answerText(draft));
      const next =
        current === -1
          ? action.by > 0
            ? 0
            : choices.length - 1
          : (current + action.by + choices.length) % choices.length;
      return {
        ...draft,
        input: textInputReducer(draft.input, { type: 'replaced', text: choices[next] ?? '' }),
        problem: null,
      };
    }
    case 'submitted':
      if (draft.submitting || draft.accepted) return draft;
      if (answerText(draft) === '') return { ...draft, problem: emptyAnswerProblem };
      return { ...draft, submitting: true, problem: null };
    case 'rejected':
      return { ...draft, submitting: false, problem: action.problem };
    case 'accepted':
      return { ...draft, submitting: false, accepted: true, problem: null };
  }
}

/** What a key does in the answer box; cancelling (Esc) is the screen's to handle. */
export function answerCommandAction(command: AnswerInputCommand): AnswerAction | { type: 'cancel' } {
  if (command.type === 'cancel') return command;
  if (command.type === 'submit') return { type: 'submitted' };
  if (command.type === 'choice') return { type: 'choice-cycled', by: command.by };
  return { type: 'edited', edit: textInputAction(command) };
}
