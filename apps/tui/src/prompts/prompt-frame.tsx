// The common look of every prompt: a rounded box with a title, body lines, then the
// question or the menu, and a help line. Display only.
import { Box } from 'ink';
import type { ReactNode } from 'react';
import { Text } from '../theme/text.js';
import { useScreenSize, useTheme } from '../theme/theme-context.js';

export type PromptTone = 'normal' | 'warning' | 'danger';

export function PromptFrame(props: { title: string; tone?: PromptTone; children: ReactNode; help?: string }) {
  const theme = useTheme();
  const { columns } = useScreenSize();
  const tone = props.tone ?? 'normal';
  const color = tone === 'danger' ? theme.danger : tone === 'warning' ? theme.warning : theme.accent;
  return (
    <Box flexDirection="column" width={Math.min(columns, 100)}>
      <Box borderStyle="round" borderColor={color} flexDirection="column" paddingX={1}>
        <Text bold color={color}>
          {props.title}
        </Text>
        {props.children}
      </Box>
      {props.help ? <Text color={theme.muted}>{` ${props.help}`}</Text> : null}
    </Box>
  );
}
