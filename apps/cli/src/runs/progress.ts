// How a run shows itself while it goes: the TUI's live view on a terminal, plain progress
// lines on stderr otherwise (round / chunk / step, who is speaking, tokens and cost so
// far). stdout stays for the result, so `--json` output pipes cleanly.
import type { RunEvent, RunResult } from '@resume/runner';
import type { CliContext } from '../context/cli-context.js';
import { formatCost, formatTokens, truncate } from '../output/format.js';
import type { Terminal } from '../output/terminal.js';
import { screenIo } from './decisions.js';

export interface RunView {
  onEvent(event: RunEvent): void;
  /** `savedAt`: the label of the checkpoint an interrupted run stopped at, when it has one. */
  finish(result: RunResult, savedAt: string | null): Promise<void>;
  /** The view itself ends with the outcome and the resume command (the live view does). */
  announcesOutcome: boolean;
  /** Whether this text was shown whole on the terminal as a turn (the live view shows every turn). */
  showedTurn(text: string): boolean;
}

export async function createRunView(context: CliContext): Promise<RunView> {
  const useLiveView =
    context.environment.interactive &&
    !context.options.json &&
    !context.options.quiet &&
    context.environment.env.CONCLAVE_PLAIN_OUTPUT !== '1';
  if (useLiveView) {
    const tui = await import('@resume/tui');
    const live = tui.createLiveRunView(screenIo(context));
    const shownTurns = new Set<string>();
    return {
      announcesOutcome: true,
      showedTurn: (text) => shownTurns.has(text.trim()),
      onEvent: (event) => {
        if (event.type === 'turn-completed' && !event.replayed) shownTurns.add(event.message.content.trim());
        live.onEvent(event);
      },
      finish: (result, savedAt) =>
        live.finish({
          status: result.status,
          sessionId: result.sessionId,
          ...(result.resumeCommand ? { resumeCommand: result.resumeCommand } : {}),
          ...(savedAt !== null && !result.cancelled ? { savedAt } : {}),
          ...(result.error ? { message: result.error.message } : {}),
          ...(result.cancelled ? { cancelled: true } : {}),
          ...(result.waitingFor ? { question: result.waitingFor.prompt } : {}),
        }),
    };
  }
  return createPlainRunView(context.terminal);
}

/**
 * Plain progress lines on stderr. Turns restored from the journal on a resume are not
 * printed one by one: one line counts them, followed by where the run picks up, before the
 * first thing that happens now.
 */
export function createPlainRunView(terminal: Terminal): RunView {
  let lastUsage = '';
  let lastProgress = '';
  let lastItemsFinished = -1;
  let restored = 0;
  let roundUnit = 'round';
  let progressWhileRestoring: string | null = null;
  const announceRestored = () => {
    if (restored === 0) return;
    terminal.note(
      terminal.dim(`  ↺ ${restored} turn${restored === 1 ? '' : 's'} restored from the journal (not run again)`),
    );
    restored = 0;
    if (progressWhileRestoring !== null) terminal.note(terminal.cyan(progressWhileRestoring));
    progressWhileRestoring = null;
  };
  /** What each parallel step last showed: a line is printed when it changes. */
  const branchLines = new Map<string, string>();
  return {
    announcesOutcome: false,
    showedTurn: () => false,
    onEvent(event) {
      switch (event.type) {
        case 'run-started':
          roundUnit = event.roundUnit;
          terminal.note(
            `${event.resumed ? '→ Resuming' : '→ Started'} session ${terminal.bold(event.sessionId)} (${event.mode})`,
          );
          break;
        case 'turn-started':
          announceRestored();
          terminal.note(
            terminal.dim(
              `  ${event.round !== null ? `${roundUnit} ${event.round} · ` : ''}${event.agent} is speaking…`,
            ),
          );
          break;
        case 'turn-completed': {
          if (event.replayed) {
            restored += 1;
            break;
          }
          announceRestored();
          const speaker = event.message.speaker ?? event.message.role;
          terminal.note(`  [${speaker}] ${truncate(event.message.content, 160)}`);
          break;
        }
        case 'progress': {
          const line = `  ${event.label}${event.total === null ? ` ${event.done}` : ` ${event.done}/${event.total}`}${event.detail ? `: ${event.detail}` : ''}`;
          // Modes report progress before and after each round; one line per change is enough.
          // While restored turns are counted, only where the replay got to is kept for later.
          if (event.done > 0 && line !== lastProgress) {
            if (restored > 0) progressWhileRestoring = line;
            else terminal.note(terminal.cyan(line));
          }
          lastProgress = line;
          break;
        }
        case 'map-progress': {
          // One line per finished item (and at the start): done / running / failed of the total.
          const line = `  items ${event.done}/${event.total} done · ${event.running} running · ${event.failed} failed`;
          const finished = event.done + event.failed;
          if (finished !== lastItemsFinished || event.total === 0) terminal.note(terminal.cyan(line));
          lastItemsFinished = finished;
          break;
        }
        case 'usage': {
          const line = `  ${formatTokens(event.totals.inputTokens, event.totals.outputTokens)} · ${formatCost(event.totals.costUsd)}`;
          if (line !== lastUsage) terminal.note(terminal.dim(line));
          lastUsage = line;
          break;
        }
        case 'notice':
          announceRestored();
          terminal.note(terminal.yellow(`  ! ${event.text}`));
          break;
        case 'parallel': {
          for (const branch of event.branches) {
            if (branch.state === 'waiting') continue;
            const line = `  step ${event.number} ∥ ${branch.id}: ${branch.state === 'replayed' ? 'restored from the journal' : branch.state.replace('-', ' ')}${branch.detail ? ` (${branch.detail})` : ''}`;
            const key = `${event.group}/${branch.id}`;
            if (branchLines.get(key) === line) continue;
            branchLines.set(key, line);
            terminal.note(branch.state === 'failed' ? terminal.yellow(line) : terminal.dim(line));
          }
          const joined = event.branches.every((branch) => ['completed', 'replayed', 'skipped'].includes(branch.state));
          if (event.finished && joined) terminal.note(terminal.cyan(`  step ${event.number} parallel: joined`));
          break;
        }
        default:
          break;
      }
    },
    async finish() {
      announceRestored();
    },
  };
}
