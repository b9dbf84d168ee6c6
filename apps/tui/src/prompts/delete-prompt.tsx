// "Delete session …? [y/N]" before `sessions delete` removes a session in a terminal: what
// it is, and which sessions continue or branch from it (they keep their own history and
// lose their parent link). No is the default: Enter and Esc keep the session.
import { useInput } from 'ink';
import { commandFor, deleteKeys, helpLine } from '../keys/key-bindings.js';
import { fitText } from '../theme/format.js';
import { Text } from '../theme/text.js';
import { useScreenSize, useTheme } from '../theme/theme-context.js';
import { PromptFrame } from './prompt-frame.js';

export interface DeleteInfo {
  sessionId: string;
  title: string;
  /** e.g. "completed · discussion · updated 2026-06-01 10:00". */
  details: string;
  /** Sessions whose parent this one is: "<id> <title>". */
  children: readonly string[];
}

/** What a delete does to the sessions that continue or branch from the deleted one: they are kept, orphaned. */
export function childrenNotice(count: number): string {
  return count === 1
    ? '1 child session will keep its own history and lose its parent link'
    : `${count} child sessions will keep their own history and lose their parent link`;
}

export function DeletePrompt(props: { info: DeleteInfo; onAnswer: (yes: boolean) => void }) {
  const theme = useTheme();
  const { columns } = useScreenSize();
  const { info, onAnswer } = props;
  useInput((input, key) => {
    const command = commandFor(deleteKeys, { input, key });
    if (command) onAnswer(command.yes);
  });
  const width = Math.min(columns, 100) - 4;
  return (
    <PromptFrame title={fitText(`Delete "${info.title}"?`, width)} tone="danger" help={helpLine(deleteKeys)}>
      <Text>{fitText(`${info.sessionId} · ${info.details}`, width)}</Text>
      {info.children.length > 0 ? (
        <>
          <Text color={theme.warning}>{childrenNotice(info.children.length)}:</Text>
          {info.children.slice(0, 5).map((child) => (
            <Text key={child} color={theme.muted}>
              {fitText(`  ${child}`, width)}
            </Text>
          ))}
          {info.children.length > 5 ? <Text color={theme.muted}> and {info.children.length - 5} more</Text> : null}
        </>
      ) : null}
      <Text bold>
        Delete it? <Text color={theme.accent}>[y/N]</Text>
      </Text>
    </PromptFrame>
  );
}
