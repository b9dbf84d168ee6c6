// Test support: builds the writer process once per test file and runs copies of it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { bundleForNode } from '@resume/test-support';
import { type WriterConfig, type WriterReport, writerReportSchema } from './writer-protocol.js';

export interface WriterProcess {
  readonly child: ChildProcess;
  readonly reports: WriterReport[];
  /** Resolves with the first report that satisfies `predicate` (rejects if the process exits first). */
  waitFor(predicate: (report: WriterReport) => boolean): Promise<WriterReport>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface WriterLauncher {
  start(config: WriterConfig): WriterProcess;
  /** Kills every process still running and removes the build. */
  dispose(): Promise<void>;
}

export async function buildWriter(): Promise<WriterLauncher> {
  const directory = mkdtempSync(path.join(tmpdir(), 'conclave-pg-writer-'));
  const outfile = path.join(directory, 'writer.mjs');
  // `pg` may load its optional native binding: left out of the bundle.
  await bundleForNode(new URL('./writer-process.ts', import.meta.url), outfile, { external: ['pg-native'] });
  const running = new Set<WriterProcess>();

  const start = (config: WriterConfig): WriterProcess => {
    const child = spawn(process.execPath, [outfile], {
      env: { ...process.env, CONCLAVE_WRITER_CONFIG: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const reports: WriterReport[] = [];
    const waiters = new Set<{
      predicate: (report: WriterReport) => boolean;
      resolve: (report: WriterReport) => void;
    }>();
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const report = writerReportSchema.parse(JSON.parse(line));
      reports.push(report);
      for (const waiter of waiters) {
        if (waiter.predicate(report)) {
          waiters.delete(waiter);
          waiter.resolve(report);
        }
      }
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
      child.on('exit', (code, signal) => resolve({ code, signal, stderr }));
    });
    const writer: WriterProcess = {
      child,
      reports,
      exited,
      waitFor(predicate) {
        const seen = reports.find(predicate);
        if (seen) return Promise.resolve(seen);
        return new Promise((resolve, reject) => {
          waiters.add({ predicate, resolve });
          void exited.then((exit) => {
            const late = reports.find(predicate);
            if (late) resolve(late);
            else reject(new Error(`writer exited (${exit.code ?? exit.signal}) before reporting: ${exit.stderr}`));
          });
        });
      },
      async kill(signal = 'SIGKILL') {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        await exited;
      },
    };
    running.add(writer);
    void exited.then(() => running.delete(writer));
    return writer;
  };

  return {
    start,
    async dispose() {
      await Promise.all([...running].map((writer) => writer.kill()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
