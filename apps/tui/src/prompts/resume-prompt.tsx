// "Resume from chunk 8 of 15? [Y/n]" with what will be skipped, what is uncertain and
// what runs next. Enter or y resumes; n or Esc does not.
import { useInput } from 'ink';
import { confirmCommand } from '../keys/key-bindings.js';
import { type PlanLine, type ResumePromptPlan, resumePlanLines } from '../plan/resume-prompt-plan.js';
import { fitText, wrapText } from '../theme/format.js';
import { Text } from '../theme/text.js';
import type { Theme } from '../theme/theme.js';
import { useScreenSize, useTheme } from '../theme/theme-context.js';
import { PromptFrame } from './prompt-frame.js';

export function ResumePrompt(props: { plan: ResumePromptPlan; onAnswer: (resume: boolean) => void }) {
  const theme = useTheme();
  const { columns } = useScreenSize();
  const { plan, onAnswer } = props;
  useInput((input, key) => {
    const command = confirmCommand({ input, key });
    if (!command) return;
    onAnswer(command.type === 'accept-default' ? true : command.yes);
  });
  const width = Math.min(columns, 100) - 4;
  const lines = resumePlanLines(plan);
  const tone =
    plan.changes.compatibility?.level === 'warn' || lines.some((line) => line.kind === 'uncertain')
      ? 'warning'
      : 'normal';
  return (
    <PromptFrame
      title={fitText(`${plan.title} · ${plan.sessionId}`, width)}
      tone={tone}
      help="y/Enter resume  n/Esc do not resume"
    >
      {lines.map((line) => (
        <Text key={`${line.kind}-${line.text}`} color={lineColor(line, theme)}>
          {wrapText(`${line.kind === 'warning' ? '! ' : '• '}${line.text}`, width, '  ').join('\n')}
        </Text>
      ))}
      <Text bold>
        {plan.question} <Text color={theme.accent}>[Y/n]</Text>
      </Text>
    </PromptFrame>
  );
}

function lineColor(line: PlanLine, theme: Theme): string | undefined {
  switch (line.kind) {
    case 'warning':
    case 'uncertain':
      return theme.warning;
    case 'next':
      return theme.accent;
    case 'done':
    case 'cost':
      return theme.muted;
    default:
      return undefined;
  }
}
