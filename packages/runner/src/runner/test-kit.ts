// Test support for the runner and mode tests: deterministic fake models (the same agent and
// input give the same answer, like the scripted provider), a call log, and ways to stop a
// run mid-call: an interrupt through the signal, or a "crash" (the call never returns and
// the run is abandoned, as when the process dies).
import { createHash } from 'node:crypto';
import type { Engine } from '@resume/core';
import { createEngine } from '@resume/core';
import {
  type ChatModel,
  type GenerateRequest,
  type GenerateResult,
  MODEL_SPECIFICATION_VERSION,
  ProviderError,
  type ToolCall,
} from '@resume/core/spec';
import { createMemoryStore, type MemoryStore } from '@resume/core/testing';
import type { ModelResolver } from '../modes/mode-context.js';
import { workflowStepIds } from '../workflow/step-ids.js';
import { parseWorkflowSpec } from '../workflow/workflow-spec.js';
import { createRunner, type Runner, type RunnerOptions } from './runner.js';

export interface LoggedCall {
  agent: string;
  model: string;
  role: string | undefined;
  round: number | undefined;
  messageCount: number;
  lastMessage: string;
  /** What the model was given, as it was given. */
  request: Pick<GenerateRequest, 'system' | 'messages'>;
}

/** What a call does instead of answering: hang until aborted (an interrupt) or forever (a crash). */
export type CallInterception = 'interrupt' | 'crash' | undefined;

export interface FakeModelsOptions {
  /** The judge declares consensus from this round on (default 2). */
  consensusAt?: number;
  /** Turns of a tool-using lead, in order; after the last one it answers without tools. */
  leadScript?: Array<{ text: string; toolCalls?: ToolCall[] }>;
  /** Decides per call (0-based index over all calls) whether it hangs. */
  intercept?: (call: LoggedCall, index: number) => CallInterception;
  /** Called when a call starts hanging (tests interrupt or abandon the run then). */
  onHang?: (call: LoggedCall, kind: 'interrupt' | 'crash') => void;
  /** The usage every call reports (default 10 in / 5 out tokens). */
  usage?: { inputTokens: number; outputTokens: number };
}

export interface FakeModels {
  resolve: ModelResolver;
  calls: LoggedCall[];
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 10);

export function createFakeModels(options: FakeModelsOptions = {}): FakeModels {
  const calls: LoggedCall[] = [];
  const consensusAt = options.consensusAt ?? 2;
  let leadTurn = 0;

  const answer = (request: GenerateRequest, agent: string): { text: string; toolCalls: ToolCall[] } => {
    const fingerprint = digest(
      JSON.stringify({
        agent,
        system: request.system,
        messages: request.messages.map((m) => [m.role, m.speaker, m.content]),
      }),
    );
    const round = request.metadata?.round;
    if (request.metadata?.role === 'judge') {
      const consensus = request.metadata.forceConsensus === true || (round ?? 0) >= consensusAt;
      return {
        text: consensus
          ? `VERDICT: CONSENSUS\nFinal solution ${fingerprint}`
          : `VERDICT: CONTINUE\nSettle the open points ${fingerprint}`,
        toolCalls: [],
      };
    }
    if (request.metadata?.role === 'lead' && options.leadScript) {
      // Keyed by turn so a replayed (not called) turn does not shift the script.
      leadTurn = round ?? leadTurn + 1;
      const scripted = options.leadScript[leadTurn - 1];
      if (scripted) return { text: scripted.text, toolCalls: scripted.toolCalls ?? [] };
      return { text: `Done ${fingerprint}`, toolCalls: [] };
    }
    return { text: `${agent} says ${fingerprint}`, toolCalls: [] };
  };

  const model = (agentName: string, modelId: string): ChatModel => ({
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider: 'fake',
    modelId,
    async generate(request): Promise<GenerateResult> {
      const agent = request.metadata?.agent ?? agentName;
      const call: LoggedCall = {
        agent,
        model: modelId,
        role: request.metadata?.role,
        round: request.metadata?.round,
        messageCount: request.messages.length,
        lastMessage: request.messages.at(-1)?.content ?? '',
        request: structuredClone({
          ...(request.system !== undefined ? { system: request.system } : {}),
          messages: request.messages,
        }),
      };
      const index = calls.length;
      calls.push(call);
      const interception = options.intercept?.(call, index);
      if (interception) {
        await new Promise<never>((_resolve, reject) => {
          if (interception === 'interrupt') {
            request.signal?.addEventListener('abort', () =>
              reject(new ProviderError({ reason: 'aborted', provider: 'fake', message: 'aborted' })),
            );
          }
          options.onHang?.(call, interception);
        });
      }
      const { text, toolCalls } = answer(request, agent);
      request.onDelta?.(text);
      return {
        message: { role: 'assistant', content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
        toolCalls,
        usage: options.usage ?? { inputTokens: 10, outputTokens: 5 },
        model: modelId,
        finishReason: toolCalls.length > 0 ? 'tool-calls' : 'stop',
      };
    },
  });

  return { resolve: (agent) => model(agent.name, agent.model ?? 'fake-model'), calls };
}

/** A store shared by "processes": each `engine()` is a fresh engine, as after a restart. */
export function createTestStore(): { store: MemoryStore; engine: () => Engine } {
  const store = createMemoryStore();
  return { store, engine: () => createEngine({ store }) };
}

/** Resolves once the predicate holds (polled; a generous bound only to end a broken test). */
export async function until(predicate: () => boolean, limit = 5000): Promise<void> {
  for (let index = 0; index < limit; index += 1) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, index < 100 ? 0 : 5));
  }
  throw new Error('condition never became true');
}

/** The parts of a transcript a user reads, for comparing runs. */
export function transcriptOf(
  messages: Array<{ role: string; speaker: string | null; content: string; round: number | null }>,
) {
  return messages.map(({ role, speaker, content, round }) => ({ role, speaker, content, round }));
}

export const instantSleep = async () => undefined;

/**
 * A runner that interrupts itself when it reaches the checkpoint labelled `at` (or the first
 * checkpoint `at` accepts), as a Ctrl+C at that moment would.
 */
export function createRunnerInterruptedAt(
  at: string | ((checkpoint: { seq: number; label: string | null }) => boolean),
  options: RunnerOptions,
): Runner {
  const reached = typeof at === 'string' ? (checkpoint: { label: string | null }) => checkpoint.label === at : at;
  const runner = createRunner({
    ...options,
    onEvent: (event) => {
      options.onEvent?.(event);
      if (event.type === 'checkpoint' && reached(event)) void runner.interrupt();
    },
  });
  return runner;
}

/** How a new session's checkpoint labels name the spec's step at `index`: `step <its id>`. */
export function stepLabelIn(specText: string, index: number): string {
  const id = workflowStepIds(parseWorkflowSpec(specText, 'flow.yaml').steps)[index];
  if (id === undefined) throw new Error(`The spec has no step ${index}`);
  return `step ${id}`;
}
