// A model the session used is not available now: go on with the same name (it may
// answer differently), pick another model, or cancel.
import { useMemo } from 'react';
import { choiceHelp } from '../keys/key-bindings.js';
import { Text } from '../theme/text.js';
import { useTheme } from '../theme/theme-context.js';
import { ChoiceMenu } from './choice-menu.js';
import type { ChoiceOption } from './choice-reducer.js';
import { PromptFrame } from './prompt-frame.js';

export interface ModelUnavailableInfo {
  /** The model the session recorded. */
  model: string;
  /** Agents that used it. */
  agents?: readonly string[];
  /** Models that can stand in, best first (at most nine get a shortcut digit). */
  alternatives: readonly string[];
  /** Why it is unavailable, as the provider said it. */
  reason?: string;
}

export type ModelUnavailableAnswer =
  | { choice: 'same'; model: string }
  | { choice: 'other'; model: string }
  | { choice: 'cancel' };

export function modelChoices(info: ModelUnavailableInfo): ChoiceOption<ModelUnavailableAnswer>[] {
  return [
    {
      value: { choice: 'same', model: info.model },
      shortcut: 's',
      label: `Continue with '${info.model}'`,
      description: 'the current version may answer differently, or fail',
    },
    ...info.alternatives.slice(0, 9).map((model, index) => ({
      value: { choice: 'other' as const, model },
      shortcut: String(index + 1),
      label: `Use '${model}' instead`,
    })),
    { value: { choice: 'cancel' }, shortcut: 'c', label: 'Cancel', description: 'or choose models with --models' },
  ];
}

export function ModelUnavailablePrompt(props: {
  info: ModelUnavailableInfo;
  onAnswer: (answer: ModelUnavailableAnswer) => void;
}) {
  const theme = useTheme();
  const { info, onAnswer } = props;
  const options = useMemo(() => modelChoices(info), [info]);
  const agents = info.agents && info.agents.length > 0 ? ` (used by ${info.agents.join(', ')})` : '';
  return (
    <PromptFrame title={`Model '${info.model}' is not available`} tone="warning" help={choiceHelp}>
      <Text>
        The session used '{info.model}'{agents}, which the provider does not offer now.
      </Text>
      {info.reason ? <Text color={theme.muted}>{info.reason}</Text> : null}
      <ChoiceMenu
        options={options}
        defaultIndex={options.length - 1}
        onChoose={onAnswer}
        onCancel={() => onAnswer({ choice: 'cancel' })}
      />
    </PromptFrame>
  );
}
