// A menu of options inside a prompt, driven by choiceReducer; reports the chosen value
// once and Esc reports the cancel value.
import { Box, useInput } from 'ink';
import { useEffect, useMemo, useReducer } from 'react';
import { choiceCommand } from '../keys/key-bindings.js';
import { Text } from '../theme/text.js';
import { useTheme } from '../theme/theme-context.js';
import { type ChoiceOption, choiceReducer, initialChoiceState } from './choice-reducer.js';

export function ChoiceMenu<T>(props: {
  options: readonly ChoiceOption<T>[];
  defaultIndex?: number;
  onChoose: (value: T) => void;
  onCancel: () => void;
}) {
  const theme = useTheme();
  const reducer = useMemo(() => choiceReducer(props.options), [props.options]);
  const [state, dispatch] = useReducer(reducer, props.defaultIndex ?? 0, initialChoiceState);
  const { onChoose, options } = props;

  useEffect(() => {
    if (state.chosen === null) return;
    const option = options[state.chosen];
    if (option) onChoose(option.value);
  }, [state.chosen, options, onChoose]);

  useInput((input, key) => {
    const command = choiceCommand({ input, key });
    if (!command) return;
    if (command.type === 'cancel') props.onCancel();
    else if (command.type === 'move') dispatch({ type: 'moved', by: command.by });
    else if (command.type === 'accept') dispatch({ type: 'accepted' });
    else dispatch({ type: 'shortcut-pressed', shortcut: command.shortcut });
  });

  return (
    <Box flexDirection="column" marginTop={1}>
      {props.options.map((option, index) => {
        const highlighted = index === state.highlighted;
        return (
          <Box key={`${option.shortcut}-${option.label}`} flexDirection="column">
            <Text color={highlighted ? theme.accent : undefined} bold={highlighted}>
              {highlighted ? '› ' : '  '}[{option.shortcut}] {option.label}
            </Text>
            {option.description ? <Text color={theme.muted}>{`      ${option.description}`}</Text> : null}
          </Box>
        );
      })}
    </Box>
  );
}
