// What the end-to-end tests in a real terminal share: the built CLI (built when missing or
// older than the sources), a tmux server of their own with one pane, and waiting for what
// the screen shows.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const cliBundle = path.join(repoRoot, 'apps/cli/dist/conclave.mjs');
export const tmuxAvailable = spawnSync('tmux', ['-V']).status === 0;

if (!tmuxAvailable) {
  console.warn('\n!!! tmux is not installed: the TUI end-to-end test is SKIPPED. Install tmux to run it. !!!\n');
}

function newestSource(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs);
  }
  return newest;
}

export const tuiBundle = path.join(repoRoot, 'apps/tui/dist/conclave-tui.mjs');

/** Builds an app's bin (`apps/cli` or `apps/tui`) when it is missing or older than the sources it bundles. */
function ensureBuilt(app: 'cli' | 'tui', bundle: string): void {
  const sources = [
    'apps/cli/src',
    'apps/tui/src',
    'packages/core/src',
    'packages/runner/src',
    'packages/providers-scripted/src',
  ].map((dir) => newestSource(path.join(repoRoot, dir)));
  if (existsSync(bundle) && statSync(bundle).mtimeMs >= Math.max(...sources)) return;
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts/build-package.mjs')], {
    cwd: path.join(repoRoot, 'apps', app),
    stdio: 'inherit',
  });
}

export function ensureCliBuilt(): void {
  ensureBuilt('cli', cliBundle);
}

export function ensureTuiBuilt(): void {
  ensureBuilt('tui', tuiBundle);
}

/** A tmux server of its own (`name`), a temporary home and workspace, and one pane (100x30 unless told). */
export function createTmuxTerminal(name: string, size = { columns: 100, rows: 30 }) {
  const socket = `${name}-${process.pid}`;
  const root = mkdtempSync(path.join(tmpdir(), `${name}-`));
  const home = path.join(root, 'home');
  const workspace = path.join(root, 'workspace');
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-t', 'e2e');
  const waitForScreen = async (predicate: (text: string) => boolean, what: string, tries = 300) => {
    for (let attempt = 0; attempt < tries; attempt++) {
      const text = screen();
      if (predicate(text)) return text;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`Timed out waiting for ${what}. Screen:\n${screen()}`);
  };
  const type = (...keys: string[]) => tmux('send-keys', '-t', 'e2e', ...keys);
  // Without an API key the scripted provider is the default; `--provider scripted` would also
  // make every agent call the provider's default model instead of the one it recorded.
  const conclave = (latencyMs: number, args: string, env = '') =>
    `env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY CONCLAVE_HOME=${home} CONCLAVE_SCRIPTED_LATENCY_MS=${latencyMs} ${env} ` +
    `${process.execPath} ${cliBundle} ${args}; echo "EXIT=$?"`;
  /** Runs the CLI outside the pane (no terminal) and returns what it printed on stdout. */
  const runPlain = (args: string[]) =>
    execFileSync(process.execPath, [cliBundle, ...args], {
      cwd: workspace,
      env: { PATH: process.env.PATH ?? '', CONCLAVE_HOME: home, HOME: root },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const listSessions = () =>
    JSON.parse(runPlain(['sessions', 'list', '--json'])) as {
      id: string;
      title: string;
      status: string;
      parentId: string | null;
    }[];
  const freshPane = () => {
    type('C-c');
    tmux('clear-history', '-t', 'e2e');
    type('clear', 'Enter');
  };
  /** `freshPane`, then waits until the shell took the clear: keys typed at once can reach it half-read. */
  const settledPane = async () => {
    const cleared = (text: string) => /[#$]\s*$/.test(text.trim()) && !text.includes('EXIT=');
    for (let attempt = 1; attempt < 5; attempt++) {
      freshPane();
      // A clear that lost a key to the Ctrl+C before it ("lear: command not found") is typed again.
      const settled = await waitForScreen(cleared, 'a cleared pane', 20).then(
        () => true,
        () => false,
      );
      if (settled) return;
    }
    freshPane();
    await waitForScreen(cleared, 'a cleared pane');
  };
  const open = async () => {
    ensureCliBuilt();
    execFileSync('mkdir', ['-p', home, workspace]);
    tmux(
      'new-session',
      '-d',
      '-s',
      'e2e',
      '-x',
      String(size.columns),
      '-y',
      String(size.rows),
      '-c',
      workspace,
      'bash --norc --noprofile',
    );
    tmux('set-option', '-t', 'e2e', 'history-limit', '5000');
    // A Ctrl+C that reaches bash before it set up its prompt ends it (and the pane) on a loaded machine.
    await waitForScreen((text) => text.trim() !== '', 'the shell prompt');
  };
  const close = () => {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
    rmSync(root, { recursive: true, force: true });
  };
  return {
    root,
    home,
    workspace,
    tmux,
    screen,
    waitForScreen,
    type,
    conclave,
    runPlain,
    listSessions,
    freshPane,
    settledPane,
    open,
    close,
  };
}
