// The session picker screen: header with filters, the search box, the windowed
// session list and the details pane. Only the visible rows are rendered, so a
// store with thousands of sessions opens as fast as one with ten.
import { Box } from 'ink';
import { useMemo } from 'react';
import type { TuiBackend } from '../backend/tui-backend.js';
import { answerHelp, helpLine, organizeKeys, pickerKeys, searchKeys } from '../keys/key-bindings.js';
import { AnswerBox } from '../prompts/answer-box.js';
import type { AnswerDraft } from '../prompts/answer-reducer.js';
import { childrenNotice, deleteQuestion } from '../prompts/delete-prompt.js';
import { fitText, wrapHelp, wrapText } from '../theme/format.js';
import { Text } from '../theme/text.js';
import { useScreenSize, useTheme } from '../theme/theme-context.js';
import { DetailsPane, detailsHeight } from './details-pane.js';
import { listWindow, type MetadataEdit, selectedIndex } from './picker-reducer.js';
import { progressWidth, SessionListHeader, SessionRow } from './session-row.js';
import { UsagePane } from './usage-pane.js';
import { type PickedSession, useSessionPicker } from './use-session-picker.js';

export interface SessionPickerProps {
  backend: TuiBackend;
  onDone: (picked: PickedSession | null) => void;
  heading?: string;
  allowDelete?: boolean;
  settleMs?: number;
  /** The directory it is opened from: starts on its sessions (`w` switches to all). */
  workspaceDir?: string;
  /** Start on every workspace (`w` narrows to `workspaceDir`). */
  allWorkspaces?: boolean;
}

/** Lines around the list: heading, search line, column header, notice line (and the help lines). */
const chromeHeight = 4;

export function SessionPicker(props: SessionPickerProps) {
  const theme = useTheme();
  const { columns, rows } = useScreenSize();
  // One line is left free: a frame as tall as the terminal scrolls on some terminals.
  const detailsRows = rows >= 20 ? detailsHeight : 0;
  const help = wrapHelp(helpLine(pickerKeys), columns - 1);
  const browseHeight = Math.max(3, rows - 1 - chromeHeight - help.length - detailsRows);
  const model = useSessionPicker({
    backend: props.backend,
    onDone: props.onDone,
    pageSize: browseHeight,
    allowDelete: props.allowDelete ?? true,
    ...(props.settleMs === undefined ? {} : { settleMs: props.settleMs }),
    ...(props.workspaceDir === undefined ? {} : { workspaceDir: props.workspaceDir }),
    ...(props.allWorkspaces === undefined ? {} : { allWorkspaces: props.allWorkspaces }),
  });
  const { state, visible, selected } = model;
  const notice = state.edit || state.mode === 'confirm-delete' ? [''] : noticeLines(state.notice, columns - 2);
  // The answer box takes the details pane's place (and its height where the pane is off); a notice
  // of more than one line takes the list's.
  const boxHeight = state.answer && detailsRows === 0 ? Math.max(3, browseHeight - detailsHeight) : browseHeight;
  const listHeight = Math.max(3, boxHeight - (notice.length - 1));
  const query = state.query.trim();
  const hasSnippets = query !== '' && Object.keys(state.contentMatches).length > 0;
  const itemsShown = hasSnippets ? Math.max(1, Math.floor(listHeight / 2)) : listHeight;
  const cursor = selectedIndex(state, visible);
  const window = listWindow(visible.length, cursor, itemsShown);
  // From every session, not the rows in view: the columns stay put while the list scrolls or filters.
  const progressColumn = useMemo(() => progressWidth(state.sessions), [state.sessions]);
  const filters = [
    ...(state.workspaceDir === null ? [] : [state.onlyThisDirectory ? 'this directory' : 'all workspaces']),
    `status: ${state.statusFilter ?? 'all'}`,
    `mode: ${state.modeFilter ?? 'all'}`,
    ...(state.tagFilter === null ? [] : [`tag: ${state.tagFilter}`]),
    ...(state.showArchived ? ['with archived'] : []),
  ].join('  ');
  const count = state.loading ? 'loading…' : `${visible.length} of ${state.sessions.length}`;

  return (
    <Box flexDirection="column" width={columns}>
      <Text>
        <Text bold color={theme.accent}>
          {props.heading ?? 'Conclave sessions'}
        </Text>
        <Text color={theme.muted}>{`  ${count}  ${filters}`}</Text>
      </Text>
      <SearchLine
        active={state.mode === 'search'}
        query={state.query}
        searching={state.contentSearching}
        width={columns - 2}
      />
      <SessionListHeader columns={columns} progressWidth={progressColumn} />
      {state.usage ? (
        <UsagePane usage={state.usage} columns={columns} height={listHeight + (detailsRows > 0 ? detailsHeight : 0)} />
      ) : null}
      <Box flexDirection="column" height={state.usage ? 0 : listHeight} overflow="hidden">
        {state.error ? <Text color={theme.danger}>{fitText(state.error, columns - 2)}</Text> : null}
        {!state.loading && !state.error && visible.length === 0 ? (
          <Text color={theme.muted}>
            {state.sessions.length === 0 ? 'No sessions yet.' : 'No session matches the search or filters.'}
          </Text>
        ) : null}
        {visible.slice(window.start, window.end).map((summary) => (
          <SessionRow
            key={summary.id}
            summary={summary}
            selected={summary.id === selected?.id}
            columns={columns}
            progressWidth={progressColumn}
            match={query !== '' && state.contentQuery === query ? state.contentMatches[summary.id] : undefined}
          />
        ))}
      </Box>
      {state.usage ? null : state.answer ? (
        <AnswerPane draft={state.answer} columns={columns} />
      ) : detailsRows > 0 && state.showDetails ? (
        <DetailsPane summary={selected} details={selected ? state.details[selected.id] : undefined} columns={columns} />
      ) : detailsRows > 0 ? (
        <Box height={detailsHeight} />
      ) : null}
      {state.edit ? (
        <EditLine edit={state.edit} width={columns - 2} />
      ) : (
        <NoticeLine
          confirming={state.mode === 'confirm-delete' ? (selected?.title ?? selected?.id ?? '') : null}
          childCount={selected ? state.sessions.filter((summary) => summary.parentId === selected.id).length : 0}
          notice={notice}
          width={columns - 2}
        />
      )}
      {state.mode === 'search' || state.answer || state.edit ? (
        <>
          <Text color={theme.muted}>
            {fitText(
              state.answer
                ? answerHelp(Boolean(state.answer.question.choices))
                : state.edit
                  ? (state.notice ?? helpLine(organizeKeys))
                  : helpLine(searchKeys),
              columns - 1,
            )}
          </Text>
          {help.slice(1).map((line) => (
            <Text key={line}> </Text>
          ))}
        </>
      ) : (
        help.map((line) => (
          <Text key={line} color={theme.muted}>
            {line}
          </Text>
        ))
      )}
    </Box>
  );
}

/** The answer box of the selected waiting session, where the details pane was. */
function AnswerPane(props: { draft: AnswerDraft; columns: number }) {
  const theme = useTheme();
  const width = props.columns - 2;
  return (
    <Box height={detailsHeight} flexDirection="column" overflow="hidden">
      <Text color={theme.muted}>
        {fitText(`── Answer ${props.draft.question.sessionId} ${'─'.repeat(width)}`, width)}
      </Text>
      <AnswerBox draft={props.draft} width={width} questionLines={3} />
    </Box>
  );
}

function SearchLine(props: { active: boolean; query: string; searching: boolean; width: number }) {
  const theme = useTheme();
  if (!props.active && props.query === '') return <Text color={theme.muted}>/ to search</Text>;
  return (
    <Text>
      <Text color={theme.accent}>/ </Text>
      {fitText(props.query, props.width - 24)}
      {props.active ? <Text inverse> </Text> : null}
      <Text color={theme.muted}>{props.searching ? '  searching content…' : ''}</Text>
    </Text>
  );
}

/** The name or tags box of the selected session, on the notice line; a refusal shows below it. */
function EditLine(props: { edit: MetadataEdit; width: number }) {
  const theme = useTheme();
  const { text, cursor } = props.edit.input;
  const label = props.edit.kind === 'name' ? 'Name: ' : 'Tags: ';
  const room = Math.max(10, props.width - label.length - 1);
  // Keep the cursor in view when the text is wider than the line.
  const shift = Math.max(0, cursor - room + 1);
  const shown = text.slice(shift, shift + room);
  const at = cursor - shift;
  return (
    <Text>
      <Text color={theme.accent} bold>
        {label}
      </Text>
      {shown.slice(0, at)}
      <Text inverse>{shown[at] ?? ' '}</Text>
      {shown.slice(at + 1)}
      <Text color={theme.muted}>{props.edit.saving ? '  saving…' : ''}</Text>
    </Text>
  );
}

/** Most lines a notice takes: a longer one is cut at the end of the last. */
const noticeLinesMost = 3;

/** The notice (advice on a session that cannot run here can be long) wrapped between words. */
function noticeLines(notice: string | null, width: number): string[] {
  if (!notice) return [''];
  const lines = wrapText(notice, width);
  if (lines.length <= noticeLinesMost) return lines;
  return [...lines.slice(0, noticeLinesMost - 1), fitText(lines.slice(noticeLinesMost - 1).join(' '), width)];
}

function NoticeLine(props: { confirming: string | null; childCount: number; notice: string[]; width: number }) {
  const theme = useTheme();
  if (props.confirming !== null) {
    return (
      <>
        <Text color={theme.warning} bold>
          {fitText(`${deleteQuestion(props.confirming, true)} [y/N]`, props.width)}
        </Text>
        {props.childCount > 0 ? (
          <Text color={theme.warning}>{fitText(`${childrenNotice(props.childCount, true)}.`, props.width)}</Text>
        ) : null}
      </>
    );
  }
  return props.notice.map((line, index) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one text, in order
    <Text key={index} color={theme.muted}>
      {line}
    </Text>
  ));
}
