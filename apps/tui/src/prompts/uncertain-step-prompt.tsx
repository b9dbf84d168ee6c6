// A step with side effects started and never recorded an outcome: re-run it, skip it,
// or abort the resume. Abort is the default: doing nothing is never destructive.
import type { UncertainStepInfo } from '@resume/core/spec';
import { choiceKeys, helpLine } from '../keys/key-bindings.js';
import { formatAge } from '../theme/format.js';
import { Text } from '../theme/text.js';
import { useNow, useTheme } from '../theme/theme-context.js';
import { ChoiceMenu } from './choice-menu.js';
import type { ChoiceOption } from './choice-reducer.js';
import { PromptFrame } from './prompt-frame.js';

export type UncertainStepAnswer = 'rerun' | 'skip' | 'abort';

const options: readonly ChoiceOption<UncertainStepAnswer>[] = [
  { value: 'rerun', shortcut: 'r', label: 'Re-run the step', description: 'it may have had its effect already' },
  { value: 'skip', shortcut: 's', label: 'Skip the step', description: 'treat it as done without output' },
  { value: 'abort', shortcut: 'a', label: 'Abort the resume', description: 'nothing runs; decide later' },
];

export function UncertainStepPrompt(props: {
  info: UncertainStepInfo;
  onAnswer: (answer: UncertainStepAnswer) => void;
}) {
  const theme = useTheme();
  const now = useNow();
  const { info } = props;
  const occurrence = info.occurrence > 1 ? ` (#${info.occurrence})` : '';
  return (
    <PromptFrame title={`Uncertain step: ${info.key}${occurrence}`} tone="warning" help={helpLine(choiceKeys)}>
      {info.toolCall ? <Text>{describeToolCall(info.toolCall)}</Text> : null}
      {info.toolCall ? <Text color={theme.muted}>Arguments: {formatArguments(info.toolCall.args)}</Text> : null}
      <Text>
        Attempt {info.attempt} started {formatAge(info.startedAt, now())} and never finished. It has side effects
        (writes, commands), so it is not re-run without your decision.
      </Text>
      {info.previousFailures.length > 0 ? (
        <Text color={theme.muted}>
          Earlier failures: {info.previousFailures.length}, last: {info.previousFailures.at(-1)?.message}
        </Text>
      ) : null}
      <Text color={theme.muted}>Idempotency key: {info.idempotencyKey}</Text>
      <ChoiceMenu
        options={options}
        defaultIndex={2}
        onChoose={props.onAnswer}
        onCancel={() => props.onAnswer('abort')}
      />
    </PromptFrame>
  );
}

type ToolCallInfo = NonNullable<UncertainStepInfo['toolCall']>;

/** Which tool the step calls: an MCP server's by the server's and the tool's names. */
export function describeToolCall(call: ToolCallInfo): string {
  return call.server !== undefined && call.tool !== undefined
    ? `Tool ${call.tool} of MCP server ${call.server}`
    : `Tool ${call.name}`;
}

const ARGUMENTS_SHOWN = 400;

/** The call's arguments on one line (`{ "path": "notes.md" }`), cut when long. */
export function formatArguments(args: ToolCallInfo['args']): string {
  const text = JSON.stringify(args, null, 1).replace(/\n\s*/g, ' ');
  return text.length > ARGUMENTS_SHOWN ? `${text.slice(0, ARGUMENTS_SHOWN)}…` : text;
}
