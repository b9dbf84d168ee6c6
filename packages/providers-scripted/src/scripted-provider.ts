// The offline provider (binding behaviour, docs/architecture.md#models-and-providers): deterministic models whose output is a
// pure function of the agent and its input, so an interrupted-and-resumed run produces the
// transcript of an uninterrupted one. It is what runs when no API key is configured.
import { appendFileSync } from 'node:fs';
import {
  type ChatMessage,
  type ChatModel,
  type ChatProvider,
  ConfigError,
  type FinishReason,
  type GenerateRequest,
  type GenerateResult,
  MODEL_SPECIFICATION_VERSION,
  ProviderError,
  type ToolCall,
} from '@resume/core/spec';
import { z } from 'zod';
import { loadScript, type ParsedScriptTurn, parseScript, type ScriptTurn } from './script.js';
import { hashOf, seededRandom } from './seeded-random.js';
import { judgeTurn, participantTurn, taskOf, voiceFor } from './voices.js';

export const SCRIPTED_PROVIDER_NAME = 'scripted';

/** Characters per token of the usage estimate (the usual rule of thumb for English text). */
export const CHARACTERS_PER_TOKEN = 4;

/** Words per streamed fragment. */
const WORDS_PER_DELTA = 3;

/** How much of the last message a call-log line keeps. */
const CALL_LOG_MESSAGE_LIMIT = 1000;

export interface ScriptedProviderOptions {
  /** Where the `CONCLAVE_SCRIPTED_*` variables are read from, once, at creation (default process.env). */
  env?: Record<string, string | undefined>;
  /** Turns to play, or the path of a YAML script file (default `CONCLAVE_SCRIPTED_SCRIPT`). */
  script?: ScriptTurn[] | string;
  /** File that receives one JSON line per call (default `CONCLAVE_SCRIPTED_CALL_LOG`). */
  callLog?: string;
  /** Delay per call, cut short by the abort signal (default `CONCLAVE_SCRIPTED_LATENCY_MS`, else 0). */
  latencyMs?: number;
  /** The judge's round of consensus (default `CONCLAVE_SCRIPTED_CONSENSUS_AT`, else 2). */
  consensusAt?: number;
  /**
   * Model ids `listModels()` reports (default `CONCLAVE_SCRIPTED_MODELS`, comma-separated, else
   * `['scripted']`); `chatModel()` accepts any id. Demos and tests use it to play a provider
   * that no longer offers a model.
   */
  models?: string[];
  /** Injected for tests: how to wait. */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  /**
   * What the scripted models' calls cost, in USD per million input and output tokens (default
   * `CONCLAVE_SCRIPTED_PRICE`, `input,output`, e.g. `2.5,10`; else they are free), so cost
   * limits can be tried offline.
   */
  price?: { input: number; output: number };
}

/** One line of the call log. */
export interface CallLogEntry {
  agent: string | null;
  role: string;
  round: number | null;
  model: string;
  messageCount: number;
  lastMessage: string | null;
  /** 1-based index of the script turn played, or null when the text was generated. */
  scriptTurn: number | null;
  finishReason: FinishReason;
}

const wholeNumber = (name: string, minimum: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((value) => value >= minimum, `${name} must be at least ${minimum}`);

function readEnvNumber(
  env: Record<string, string | undefined>,
  name: string,
  minimum: number,
  fallback: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const result = wholeNumber(name, minimum).safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError({
    file: null,
    key: name,
    problem: `${result.error.issues[0]?.message ?? 'invalid value'} (got "${raw}")`,
    fix: `Set ${name} to a whole number, or unset it.`,
  });
}

const PRICE_VARIABLE = 'CONCLAVE_SCRIPTED_PRICE';
const pricePattern = /^\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*$/;

/** `CONCLAVE_SCRIPTED_PRICE=2.5,10`: USD per million input and output tokens. */
function readEnvPrice(env: Record<string, string | undefined>): { input: number; output: number } | undefined {
  const raw = env[PRICE_VARIABLE];
  if (raw === undefined || raw.trim() === '') return undefined;
  const match = pricePattern.exec(raw);
  if (match) return { input: Number(match[1]), output: Number(match[2]) };
  throw new ConfigError({
    file: null,
    key: PRICE_VARIABLE,
    problem: `the price is two numbers, USD per million input and output tokens (got "${raw}")`,
    fix: `Set ${PRICE_VARIABLE}=2.5,10 (input,output), or unset it so scripted calls are free.`,
  });
}

function abortedError(model: string): ProviderError {
  return new ProviderError({
    reason: 'aborted',
    provider: SCRIPTED_PROVIDER_NAME,
    model,
    message: `The call to scripted model ${model} was aborted.`,
  });
}

const defaultSleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

const estimateTokens = (text: string) => Math.ceil(text.length / CHARACTERS_PER_TOKEN);

/** The parts of the input that decide the output: nothing else (no clock, no randomness, no model id). */
function inputIdentity(request: GenerateRequest) {
  return {
    agent: request.metadata?.agent ?? null,
    role: request.metadata?.role ?? 'agent',
    round: request.metadata?.round ?? null,
    forceConsensus: request.metadata?.forceConsensus ?? false,
    system: request.system ?? null,
    messages: request.messages.map((message) => ({
      role: message.role,
      speaker: message.speaker ?? null,
      content: message.content,
      toolCalls: message.toolCalls ?? null,
      toolCallId: message.toolCallId ?? null,
    })),
  };
}

/**
 * The agent's own earlier turns in its input. The turn index of a script is derived from
 * them (not from a counter in the process), so a resumed process continues at the right turn.
 */
function ownTurnCount(messages: ChatMessage[], agent: string | null): number {
  return messages.filter(
    (message) =>
      message.role === 'assistant' &&
      (message.speaker === undefined || message.speaker === null || message.speaker === agent),
  ).length;
}

export function createScriptedProvider(options: ScriptedProviderOptions = {}): ChatProvider {
  const env = options.env ?? process.env;
  const latencyMs = options.latencyMs ?? readEnvNumber(env, 'CONCLAVE_SCRIPTED_LATENCY_MS', 0, 0);
  const consensusAt = options.consensusAt ?? readEnvNumber(env, 'CONCLAVE_SCRIPTED_CONSENSUS_AT', 1, 2);
  const callLog = options.callLog ?? (env.CONCLAVE_SCRIPTED_CALL_LOG || undefined);
  const scriptSource = options.script ?? (env.CONCLAVE_SCRIPTED_SCRIPT || undefined);
  const script: ParsedScriptTurn[] =
    scriptSource === undefined
      ? []
      : typeof scriptSource === 'string'
        ? loadScript(scriptSource)
        : parseScript(scriptSource, null);
  const sleep = options.sleep ?? defaultSleep;
  const price = options.price ?? readEnvPrice(env);
  const listedInEnv = (env.CONCLAVE_SCRIPTED_MODELS ?? '')
    .split(',')
    .map((model) => model.trim())
    .filter(Boolean);
  const models = options.models ?? (listedInEnv.length > 0 ? listedInEnv : [SCRIPTED_PROVIDER_NAME]);

  const scriptTurnFor = (request: GenerateRequest) => {
    const agent = request.metadata?.agent ?? null;
    const isJudge = request.metadata?.role === 'judge';
    const playable = script
      .map((turn, index) => ({ turn, index }))
      .filter(({ turn }) => (turn.agent === undefined ? !isJudge : turn.agent === agent));
    return playable[ownTurnCount(request.messages, agent)] ?? null;
  };

  const compose = (request: GenerateRequest, modelId: string) => {
    const identity = inputIdentity(request);
    const seed = hashOf(identity);
    const random = seededRandom(seed);
    const scripted = scriptTurnFor(request);
    if (scripted) {
      const toolCalls: ToolCall[] = (scripted.turn.tool_calls ?? []).map((call, index) => ({
        id: `call_${seed.slice(0, 12)}_${index + 1}`,
        name: call.name,
        args: call.args,
      }));
      return { text: scripted.turn.text ?? '', toolCalls, scriptTurn: scripted.index + 1 };
    }
    const task = taskOf(request.messages);
    if (identity.role === 'judge') {
      const round = identity.round;
      const consensus = identity.forceConsensus || (round !== null && round >= consensusAt);
      return {
        text: judgeTurn({ judge: identity.agent, task, messages: request.messages, random, consensus, round }),
        toolCalls: [],
        scriptTurn: null,
      };
    }
    const agent = identity.agent ?? modelId;
    const voice = voiceFor(agent, Number.parseInt(hashOf(agent).slice(0, 8), 16));
    return {
      text: participantTurn({ agent, voice, task, messages: request.messages, random }),
      toolCalls: [],
      scriptTurn: null,
    };
  };

  const chatModel = (modelId: string): ChatModel => ({
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider: SCRIPTED_PROVIDER_NAME,
    modelId,
    ...(price ? { price } : {}),
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const signal = request.signal;
      if (signal?.aborted) throw abortedError(modelId);
      if (latencyMs > 0) {
        try {
          await sleep(latencyMs, signal);
        } catch (error) {
          if (signal?.aborted) throw abortedError(modelId);
          throw error;
        }
      }

      const composed = compose(request, modelId);
      let text = composed.text;
      let finishReason: FinishReason = composed.toolCalls.length > 0 ? 'tool-calls' : 'stop';
      if (
        request.maxTokens !== undefined &&
        composed.toolCalls.length === 0 &&
        estimateTokens(text) > request.maxTokens
      ) {
        text = text.slice(0, request.maxTokens * CHARACTERS_PER_TOKEN);
        finishReason = 'length';
      }

      if (request.onDelta && text.length > 0) {
        const words = text.match(/\S+\s*|\s+/g) ?? [];
        for (let index = 0; index < words.length; index += WORDS_PER_DELTA) {
          if (signal?.aborted) throw abortedError(modelId);
          request.onDelta(words.slice(index, index + WORDS_PER_DELTA).join(''));
        }
      }
      if (signal?.aborted) throw abortedError(modelId);

      const inputText =
        (request.system ?? '') +
        request.messages.map((message) => message.content + JSON.stringify(message.toolCalls ?? '')).join('\n') +
        JSON.stringify(request.tools ?? []);
      const usage = {
        inputTokens: estimateTokens(inputText),
        outputTokens: estimateTokens(text + (composed.toolCalls.length > 0 ? JSON.stringify(composed.toolCalls) : '')),
      };

      if (callLog) {
        const last = request.messages.at(-1);
        const entry: CallLogEntry = {
          agent: request.metadata?.agent ?? null,
          role: request.metadata?.role ?? 'agent',
          round: request.metadata?.round ?? null,
          model: modelId,
          messageCount: request.messages.length,
          lastMessage: last ? last.content.slice(0, CALL_LOG_MESSAGE_LIMIT) : null,
          scriptTurn: composed.scriptTurn,
          finishReason,
        };
        // Synchronous, so the line is on disk before the caller can journal the result.
        appendFileSync(callLog, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
      }

      return {
        message: {
          role: 'assistant',
          content: text,
          speaker: request.metadata?.agent ?? null,
          ...(composed.toolCalls.length > 0 ? { toolCalls: composed.toolCalls } : {}),
        },
        toolCalls: composed.toolCalls,
        usage,
        model: modelId,
        finishReason,
      };
    },
  });

  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    name: SCRIPTED_PROVIDER_NAME,
    chatModel,
    async listModels() {
      return [...models];
    },
  };
}
