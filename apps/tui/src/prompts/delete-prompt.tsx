// "Move … to the trash? [y/N]" (or "Delete … for good?" with --now) before `sessions delete`
// in a terminal: what the session is, and which sessions continue or branch from it (they keep
// their own history; a delete for good leaves them without their parent link). No is the
// default: Enter and Esc keep the session.
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
  /** Moved to the trash (restorable), not deleted for good. */
  toTrash: boolean;
}

/**
 * What a delete does to the sessions that continue or branch from the deleted one: they are kept;
 * a delete for good orphans them, the trash keeps their parent link until it is emptied.
 */
export function childrenNotice(count: number, toTrash: boolean): string {
  const sessions = count === 1 ? '1 child session' : `${count} child sessions`;
  const own = count === 1 ? 'its own history' : 'their own history';
  const link = count === 1 ? 'its parent link' : 'their parent link';
  return toTrash
    ? `${sessions} will keep ${link} until the trash is emptied`
    : `${sessions} will keep ${own} and lose ${link}`;
}

/** The question before a delete: to the trash, or for good. */
export function deleteQuestion(title: string, toTrash: boolean): string {
  return toTrash ? `Move "${title}" to the trash?` : `Delete "${title}" for good?`;
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
    <PromptFrame
      title={fitText(deleteQuestion(info.title, info.toTrash), width)}
      tone="danger"
      help={helpLine(deleteKeys)}
    >
      <Text>{fitText(`${info.sessionId} · ${info.details}`, width)}</Text>
      {info.children.length > 0 ? (
        <>
          <Text color={theme.warning}>{childrenNotice(info.children.length, info.toTrash)}:</Text>
          {info.children.slice(0, 5).map((child) => (
            <Text key={child} color={theme.muted}>
              {fitText(`  ${child}`, width)}
            </Text>
          ))}
          {info.children.length > 5 ? <Text color={theme.muted}> and {info.children.length - 5} more</Text> : null}
        </>
      ) : null}
      <Text bold>
        {info.toTrash ? 'Move it to the trash?' : 'Delete it for good?'} <Text color={theme.accent}>[y/N]</Text>
      </Text>
    </PromptFrame>
  );
}
