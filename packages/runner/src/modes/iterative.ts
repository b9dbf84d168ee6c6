// Iterative mode: a project file split into chunks; for each chunk every agent works in
// turn, keeping its own notes, and the last agent's answer extends the shared output.
// Notes and output are session state (`data-set`), so a resume continues at the next chunk.
import type { ChatMessage } from '@resume/core/spec';
import { resolveWorkspacePath } from '../files/workspace-path.js';
import type { AgentSpec } from './agent-spec.js';
import { runAgentTurn } from './agent-turn.js';
import { splitIntoChunks } from './chunking.js';
import { chunksDone, chunksPassedOver, SKIPPED_CHUNKS_KEY } from './iterative-chunks.js';
import {
  checkpoint,
  ensureStepMessage,
  intervalCheckpoint,
  type ModeContext,
  type ModeResult,
  reportProgress,
  setData,
} from './mode-context.js';
import { type OutputFile, writeOutputFiles } from './workspace-output.js';

export interface IterativeOptions {
  task: string;
  agents: AgentSpec[];
  /** The project file's text (as recorded in the session, not as it is on disk now). */
  projectText: string;
  chunkSize: number;
  /** 1-based; chunks before it that never ran are skipped. */
  startChunk: number;
  /** Workspace-relative directory for the notes and shared output files. */
  outputDir: string;
}

/** Only the tail of a growing text goes into a prompt, so late chunks cost what early ones do. */
const contextTail = (text: string, max = 4000) => (text.length <= max ? text : `…${text.slice(-max)}`);

export async function runIterative(context: ModeContext, options: IterativeOptions): Promise<ModeResult> {
  const { session } = context;
  const chunks = splitIntoChunks(options.projectText, options.chunkSize);
  const total = chunks.length;
  const notes: Record<string, string> = Object.fromEntries(options.agents.map((agent) => [agent.name, '']));
  let sharedOutput = '';
  // Read once, before the run replays anything: a chunk before the start chunk that did not
  // finish is skipped, also the one an interrupt cut short.
  const finished = chunksDone(session.state);
  const skipped = chunksPassedOver(session.state, 1);

  // Every file the run will write is checked before the first model call, never after the last.
  for (const file of outputFiles(options, '', {})) await resolveWorkspacePath(context.workspaceDir, file.path);

  for (let index = 1; index <= total; index += 1) {
    if (skipped.has(index)) continue;
    if (index < options.startChunk && index > finished) {
      // Never silent, and never undone: the skip is journaled (a later resume keeps it) and said.
      skipped.add(index);
      setData(context, SKIPPED_CHUNKS_KEY, [...skipped]);
      context.emit({
        type: 'notice',
        text: `chunk ${index} of ${total} skipped (--start-chunk ${options.startChunk})`,
      });
      continue;
    }
    const chunk = chunks[index - 1] ?? '';
    reportProgress(context, 'chunks', index - 1, total);
    const contributions: ChatMessage[] = [];
    let last = '';
    for (const agent of options.agents) {
      const key = `chunk-${index}/${agent.name}`;
      const prompt = [
        `Chunk ${index} of ${total}:`,
        chunk,
        `Your notes so far:\n${contextTail(notes[agent.name] ?? '') || '(none)'}`,
        `Shared output so far:\n${contextTail(sharedOutput) || '(empty)'}`,
      ].join('\n\n');
      const output = await runAgentTurn(context, {
        key,
        agent,
        system: `${agent.systemPrompt}\n\nYou work through a document chunk by chunk. Task: ${options.task}`,
        messages: [{ role: 'user', content: prompt, speaker: 'user' }, ...contributions],
        round: index,
        metadata: { role: 'agent', round: index },
        // A skipped chunk may hold steps of its own (cut short by an interrupt) that never run again.
        inserted: skipped.size > 0,
      });
      ensureStepMessage(context, key, {
        role: 'assistant',
        content: output.content,
        speaker: agent.name,
        round: index,
      });
      contributions.push({ role: 'assistant', content: output.content, speaker: agent.name });
      notes[agent.name] = `${notes[agent.name] ?? ''}## Chunk ${index}\n${output.content}\n\n`;
      last = output.content;
      await intervalCheckpoint(context, index, false, `chunk ${index}/${total}, agent ${agent.name}`);
    }
    sharedOutput += `${last}\n\n`;
    setData(context, 'iterative', { chunk: index, totalChunks: total, notes, sharedOutput });
    await intervalCheckpoint(context, index, index === total, `chunk ${index}/${total}`);
    reportProgress(context, 'chunks', index, total);
    context.emit({ type: 'usage', totals: session.state.usage });
  }

  const conclusion = sharedOutput.trim();
  await writeOutputFiles(context, 'write-outputs', outputFiles(options, conclusion, notes), {
    inserted: skipped.size > 0,
  });
  setData(context, 'conclusion', conclusion);
  await checkpoint(context, 'outputs written');
  return { conclusion };
}

/** The shared output and one notes file per agent, under the output directory. */
function outputFiles(options: IterativeOptions, conclusion: string, notes: Record<string, string>): OutputFile[] {
  return [
    { path: `${options.outputDir}/shared-output.md`, content: `${conclusion}\n` },
    ...options.agents.map((agent) => ({
      path: `${options.outputDir}/notes/${agent.name}.md`,
      content: notes[agent.name] ?? '',
    })),
  ];
}
