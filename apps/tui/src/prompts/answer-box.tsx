// The answer box: a waiting session's question, what the answer must be, the text typed so
// far, and why the last answer was not taken. Display only; the picker and the inline
// question handle the keys.
import { Box } from 'ink';
import { fitText, wrapText } from '../theme/format.js';
import { Text } from '../theme/text.js';
import { useTheme } from '../theme/theme-context.js';
import type { AnswerDraft } from './answer-reducer.js';

export function AnswerBox(props: { draft: AnswerDraft; width: number; questionLines?: number }) {
  const theme = useTheme();
  const { draft, width } = props;
  const question = wrapText(draft.question.prompt, width - 2, '  ');
  const shown = question.slice(0, props.questionLines ?? question.length);
  if (shown.length < question.length) shown[shown.length - 1] = fitText(`${shown[shown.length - 1]} …`, width - 2);
  const { text, cursor } = draft.input;
  const before = text.slice(0, cursor);
  const atCursor = text.slice(cursor, cursor + 1) || ' ';
  const after = text.slice(cursor + 1);
  const problem = draft.problem ? wrapText(`✗ ${draft.problem}`, width, '  ').slice(0, 2) : [];
  return (
    <Box flexDirection="column">
      {shown.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one wrapped text, in order
        <Text key={index} bold color={theme.statusColor('waiting')}>
          {index === 0 ? `? ${line}` : `  ${line}`}
        </Text>
      ))}
      {draft.question.hint ? (
        <Text color={theme.muted}>{fitText(`  Expected: ${draft.question.hint}`, width)}</Text>
      ) : null}
      <Text>
        <Text bold>{'> '}</Text>
        {before}
        <Text inverse>{atCursor}</Text>
        {after}
      </Text>
      {draft.accepted ? (
        <Text color={theme.statusColor('completed')}>✓ Answered</Text>
      ) : draft.submitting ? (
        <Text color={theme.muted}>Journaling the answer…</Text>
      ) : (
        problem.map((line, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one wrapped text, in order
          <Text key={`problem-${index}`} color={theme.danger}>
            {line}
          </Text>
        ))
      )}
    </Box>
  );
}
