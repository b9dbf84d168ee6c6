// A follow-up was asked of a session that never finished (interrupted or failed): it has
// no conclusion to build on. Resume it first (the follow-up is asked once it completes),
// continue from where it stopped anyway, or cancel. Cancel is the default.
import type { SessionStatus } from '@resume/core/spec';
import { choiceKeys, helpLine } from '../keys/key-bindings.js';
import { fitText } from '../theme/format.js';
import { Text } from '../theme/text.js';
import { useScreenSize, useTheme } from '../theme/theme-context.js';
import { ChoiceMenu } from './choice-menu.js';
import type { ChoiceOption } from './choice-reducer.js';
import { PromptFrame } from './prompt-frame.js';

export interface UnfinishedContinueInfo {
  sessionId: string;
  title: string;
  status: SessionStatus;
  /** The follow-up asked; null when it is typed after this choice (a session continued from a picker). */
  followUp: string | null;
  /** Where it stopped, e.g. "round 2" or "chunk 3 of 5". */
  stoppedAt?: string | null;
}

export type UnfinishedContinueAnswer = 'resume-first' | 'continue-anyway' | 'cancel';

export function unfinishedContinueChoices(): ChoiceOption<UnfinishedContinueAnswer>[] {
  return [
    {
      value: 'resume-first',
      shortcut: 'r',
      label: 'Resume it first, then ask the follow-up',
      description: 'finishes the run where it stopped; the follow-up goes to its conclusion',
    },
    {
      value: 'continue-anyway',
      shortcut: 'c',
      label: 'Ask the follow-up now',
      description: 'a new session from where it stopped; the agents are told there was no conclusion',
    },
    { value: 'cancel', shortcut: 'q', label: 'Cancel', description: 'nothing is started' },
  ];
}

export function UnfinishedContinuePrompt(props: {
  info: UnfinishedContinueInfo;
  onAnswer: (answer: UnfinishedContinueAnswer) => void;
}) {
  const theme = useTheme();
  const { columns } = useScreenSize();
  const { info, onAnswer } = props;
  const width = Math.min(columns, 100) - 4;
  const options = unfinishedContinueChoices();
  const where = info.stoppedAt ? ` at ${info.stoppedAt}` : '';
  return (
    <PromptFrame title={fitText(`"${info.title}" is ${info.status}`, width)} tone="warning" help={helpLine(choiceKeys)}>
      <Text>
        Session {info.sessionId} stopped{where} before it reached a conclusion.
      </Text>
      <Text color={theme.muted}>
        {fitText(info.followUp === null ? 'The follow-up is typed next.' : `Follow-up: ${info.followUp}`, width)}
      </Text>
      <ChoiceMenu
        options={options}
        defaultIndex={options.length - 1}
        onChoose={onAnswer}
        onCancel={() => onAnswer('cancel')}
      />
    </PromptFrame>
  );
}
