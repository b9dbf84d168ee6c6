// The follow-up question for a session being continued, typed in a text box: Enter
// starts the continued run, Esc leaves without starting anything. An empty question is
// never submitted.
import { useInput } from 'ink';
import { useState } from 'react';
import { commandFor, followUpKeys, helpLine, type KeyPress, textBoxPresses } from '../keys/key-bindings.js';
import { useLatestReducer } from '../keys/use-latest-reducer.js';
import { fitText } from '../theme/format.js';
import { Text } from '../theme/text.js';
import { useScreenSize, useTheme } from '../theme/theme-context.js';
import { PromptFrame } from './prompt-frame.js';
import { emptyTextInput, textInputAction, textInputReducer } from './text-input-reducer.js';

export interface FollowUpInfo {
  sessionId: string;
  title: string;
  /** The session's conclusion (first line shown), when it has one. */
  conclusion?: string | null;
  /** The directory the follow-up's tools and commands work in (the session's own, unless --workspace chose another). */
  runsIn?: string;
}

export function FollowUpPrompt(props: { info: FollowUpInfo; onAnswer: (question: string | null) => void }) {
  const theme = useTheme();
  const { columns } = useScreenSize();
  const { state: input, dispatch, latest } = useLatestReducer(textInputReducer, () => emptyTextInput);
  const [emptyTried, setEmptyTried] = useState(false);
  const { info, onAnswer } = props;
  const handle = (press: KeyPress) => {
    const command = commandFor(followUpKeys, press);
    if (!command) return;
    if (command.type === 'cancel') return onAnswer(null);
    if (command.type === 'submit') {
      // What was typed, drawn or not (see use-latest-reducer.ts).
      const typed = latest.current.text.trim();
      if (typed === '') return setEmptyTried(true);
      return onAnswer(typed);
    }
    setEmptyTried(false);
    dispatch(textInputAction(command));
  };
  useInput((input, key) => {
    for (const press of textBoxPresses({ input, key })) handle(press);
  });
  const width = Math.min(columns, 100) - 4;
  const before = input.text.slice(0, input.cursor);
  const atCursor = input.text.slice(input.cursor, input.cursor + 1) || ' ';
  const after = input.text.slice(input.cursor + 1);
  const conclusion = info.conclusion?.trim().split('\n')[0];
  return (
    <PromptFrame title={fitText(`Continue "${info.title}" · ${info.sessionId}`, width)} help={helpLine(followUpKeys)}>
      {conclusion ? <Text color={theme.muted}>{fitText(`Concluded: ${conclusion}`, width)}</Text> : null}
      <Text>The agents see the earlier discussion and your question; a new linked session is started.</Text>
      {info.runsIn ? (
        <Text color={theme.muted}>{fitText(`Works in ${info.runsIn} (--workspace <dir> for another)`, width)}</Text>
      ) : null}
      <Text>
        <Text bold>Follow-up question: </Text>
        {before}
        <Text inverse>{atCursor}</Text>
        {after}
      </Text>
      {emptyTried ? <Text color={theme.warning}>Type a question first (Esc leaves without starting).</Text> : null}
    </PromptFrame>
  );
}
