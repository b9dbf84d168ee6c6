// Turns a session's journal into trace spans: one for each run (the first, and every resume),
// each round or workflow step, each map item, each step attempt (a model call when the step
// recorded usage) and each tool call. Both the live export (events as they are appended) and
// `sessions trace` (the whole journal, after the fact) go through it, so they give the same
// spans with the same ids: every id is derived from the session id and a seq (or the run's
// number), never drawn at random.
//
// Plain data only: nothing of OpenTelemetry is loaded here. The CLI hands the records to its OTLP
// exporter as they are (ids included); a library's tracer provider gets them through traced-store.ts.
import { createHash } from 'node:crypto';
import type { JournalEvent } from '@resume/core/spec';
import type { PromptCopy } from './prompt-copy.js';

export type SpanAttributes = Record<string, string | number | boolean>;

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** Unix milliseconds, from the events' times. */
  startMs: number;
  endMs: number;
  attributes: SpanAttributes;
  links: { traceId: string; spanId: string; attributes: SpanAttributes }[];
  status: { code: 'unset' | 'ok' | 'error'; message?: string };
}

export interface JournalSpanOptions {
  /** Model and tool text on the spans (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). */
  captureContent: boolean;
  /** Scrubs captured text (the journal is redacted already; this is a second guard). */
  redact?: (text: string) => string;
  /**
   * The prompt copies the journal's model calls name (`usage-recorded.promptBlob`, read with
   * `readPromptCopies` before their events are added): with `captureContent`, the calls' spans
   * carry them as `gen_ai.input.messages` and `gen_ai.system_instructions`.
   */
  prompts?: ReadonlyMap<string, PromptCopy>;
  /**
   * Told of each span as it opens (its name and attributes may still change until it ends), for
   * a tracer that starts spans as the work starts: parents open before their children.
   */
  onStart?: (span: SpanRecord) => void;
}

const hex = (parts: string[], bytes: number): string =>
  createHash('sha256')
    .update(parts.join('\u0000'))
    .digest('hex')
    .slice(0, bytes * 2);

/** The trace of a session: the same in every run of it, in every store and in every export. */
export const traceIdOf = (sessionId: string): string => hex(['conclave-trace', sessionId], 16);
/** A run's span: run 0 is the first, run N the Nth resume (`session-resumed`'s `recovery`). */
export const runSpanIdOf = (sessionId: string, run: number): string => hex(['conclave-run', sessionId, String(run)], 8);
const spanIdAt = (sessionId: string, what: string, seq: number): string =>
  hex(['conclave-span', sessionId, what, String(seq)], 8);

/**
 * The statuses a run stops at. `waiting` is not one: the run may go on in the same process once
 * the question is answered there (in a terminal), and a process that ends waiting closes it.
 */
const STOPPED = new Set(['completed', 'failed', 'interrupted']);

interface OpenSpan extends SpanRecord {
  /** Container spans (runs, groups, items) end with the last event they hold. */
  container: boolean;
}

/**
 * Feeds on a session's events in seq order and hands out each span as it ends. Steps, model
 * calls and tool calls end with their own event; rounds, workflow steps, items and the run end
 * when the run stops (a status other than running) or when `finish` is called.
 */
export class JournalSpans {
  readonly #options: JournalSpanOptions;
  readonly #sessionId: string;
  readonly #traceId: string;
  /** Events a branch copied from its parent: they are the parent's history, not this session's. */
  #copiedLeft = 0;
  #run: OpenSpan | null = null;
  readonly #groups = new Map<string, OpenSpan>();
  readonly #items = new Map<string, OpenSpan>();
  readonly #steps = new Map<string, OpenSpan>();
  readonly #tools = new Map<string, OpenSpan>();
  /** Tool call spans by the step key their tool runs under. */
  readonly #toolSteps = new Map<string, OpenSpan>();

  constructor(sessionId: string, options: JournalSpanOptions) {
    this.#sessionId = sessionId;
    this.#traceId = traceIdOf(sessionId);
    this.#options = options;
  }

  /** The spans the event ended (possibly none). */
  add(event: JournalEvent): SpanRecord[] {
    if (event.type === 'session-created') return this.#startRun(event, 0, null);
    if (event.type === 'session-resumed') return this.#startRun(event, event.recovery, event.crashed ?? true);
    if (this.#copiedLeft > 0) {
      this.#copiedLeft -= 1;
      return [];
    }
    const run = this.#run;
    if (!run) return [];
    const at = Date.parse(event.at);
    run.endMs = Math.max(run.endMs, at);
    switch (event.type) {
      case 'step-started':
        this.#stepStarted(event, at);
        return [];
      case 'usage-recorded':
        this.#usageRecorded(event);
        return [];
      case 'step-completed':
      case 'step-failed':
      case 'step-skipped':
        return this.#stepEnded(event, at);
      case 'tool-call-started':
        this.#toolStarted(event, at);
        return [];
      case 'tool-call-completed':
        return this.#toolEnded(event, at);
      case 'status-changed':
        run.attributes['conclave.session.status'] = event.status;
        if (!STOPPED.has(event.status)) return [];
        if (event.status === 'failed') run.status = { code: 'error', message: event.error?.message ?? 'failed' };
        else if (event.status === 'completed') run.status = { code: 'ok' };
        if (event.reason) run.attributes['conclave.run.stop_reason'] = event.reason;
        return this.#endRun(at);
      default:
        this.#touch(event, at);
        return [];
    }
  }

  /** Ends every span still open (a run that stopped without a status: it was killed, or is still going). */
  finish(): SpanRecord[] {
    return this.#run ? this.#endRun(this.#run.endMs) : [];
  }

  #startRun(
    event: Extract<JournalEvent, { type: 'session-created' | 'session-resumed' }>,
    run: number,
    crashed: boolean | null,
  ): SpanRecord[] {
    if (this.#run && this.#run.attributes['conclave.session.status'] === 'running') {
      // A run still running when the next one starts never stopped: its process died.
      this.#run.status = { code: 'error', message: 'the run ended without stopping (its process died)' };
      this.#run.attributes['conclave.run.died'] = true;
    }
    const ended = this.finish();
    const at = Date.parse(event.at);
    if (event.type === 'session-created') this.#copiedLeft = event.copied ?? 0;
    const sessionId = this.#sessionId;
    const links: SpanRecord['links'] = [];
    if (run > 0) {
      links.push({
        traceId: this.#traceId,
        spanId: runSpanIdOf(sessionId, run - 1),
        attributes: { 'conclave.link.reason': crashed ? 'resumed after a crash' : 'resumed' },
      });
    }
    const attributes: SpanAttributes = {
      'conclave.session.id': sessionId,
      'conclave.session.status': 'running',
      'conclave.run.number': run,
      'conclave.run.resumed': run > 0,
    };
    if (event.type === 'session-created') {
      const { header } = event;
      attributes['conclave.session.mode'] = header.mode;
      attributes['conclave.session.title'] = header.title;
      if (header.parentId !== null) {
        attributes['conclave.session.parent_id'] = header.parentId;
        links.push({
          traceId: traceIdOf(header.parentId),
          spanId: runSpanIdOf(header.parentId, 0),
          attributes: { 'conclave.link.reason': header.branchPoint === null ? 'continues' : 'branches from' },
        });
      }
    } else if (crashed !== null) {
      attributes['conclave.run.after_crash'] = crashed;
    }
    this.#run = {
      traceId: this.#traceId,
      spanId: runSpanIdOf(sessionId, run),
      parentSpanId: null,
      name: run > 0 ? 'conclave resume' : 'conclave run',
      startMs: at,
      endMs: at,
      attributes,
      links,
      status: { code: 'unset' },
      container: true,
    };
    this.#options.onStart?.(this.#run);
    return ended;
  }

  #endRun(at: number): SpanRecord[] {
    const open = [...this.#tools.values(), ...this.#steps.values(), ...this.#items.values(), ...this.#groups.values()];
    const ended: SpanRecord[] = open.map((span) => close(span, span.container ? span.endMs : at));
    if (this.#run) ended.push(close(this.#run, Math.max(this.#run.endMs, at)));
    this.#run = null;
    this.#groups.clear();
    this.#items.clear();
    this.#steps.clear();
    this.#tools.clear();
    this.#toolSteps.clear();
    return ended;
  }

  #span(
    name: string,
    parent: OpenSpan,
    what: string,
    seq: number,
    at: number,
    options: { container?: boolean; attributes?: SpanAttributes } = {},
  ): OpenSpan {
    const sessionId = this.#sessionId;
    const span: OpenSpan = {
      traceId: this.#traceId,
      spanId: spanIdAt(sessionId, what, seq),
      parentSpanId: parent.spanId,
      name,
      startMs: at,
      endMs: at,
      attributes: { 'conclave.session.id': sessionId, ...options.attributes },
      links: [],
      status: { code: 'unset' },
      container: options.container ?? false,
    };
    this.#options.onStart?.(span);
    return span;
  }

  /** The span a step's events belong under: its tool call, its map item, its round or workflow step, else the run. */
  #parentOf(key: string, branch: string | undefined, seq: number, at: number): OpenSpan {
    const run = this.#run as OpenSpan;
    const tool = this.#toolSteps.get(key);
    if (tool) return tool;
    let parent = run;
    const group = groupOf(key);
    if (group) {
      let span = this.#groups.get(group.id);
      if (!span) {
        span = this.#span(group.name, run, 'group', seq, at, { container: true, attributes: group.attributes });
        this.#groups.set(group.id, span);
      }
      span.endMs = Math.max(span.endMs, at);
      parent = span;
    }
    const item = branch ? itemOf(branch) : null;
    if (branch && item) {
      let span = this.#items.get(branch);
      if (!span) {
        span = this.#span(`item ${item.id}`, parent, 'item', seq, at, {
          container: true,
          attributes: { 'conclave.map.step': item.step, 'conclave.map.item': item.id },
        });
        this.#items.set(branch, span);
      }
      span.endMs = Math.max(span.endMs, at);
      parent = span;
    }
    return parent;
  }

  #stepStarted(event: Extract<JournalEvent, { type: 'step-started' }>, at: number): void {
    const parent = this.#parentOf(event.key, event.branch, event.seq, at);
    const span = this.#span(`step ${shortKey(event.key)}`, parent, 'step', event.seq, at, {
      attributes: {
        'conclave.step.key': event.key,
        'conclave.step.occurrence': event.occurrence,
        'conclave.step.attempt': event.attempt,
        'conclave.step.safety': event.safety,
        'conclave.step.idempotency_key': event.idempotencyKey,
        ...(event.branch ? { 'conclave.step.branch': event.branch } : {}),
      },
    });
    this.#steps.set(stepId(event.key, event.occurrence), span);
  }

  #usageRecorded(event: Extract<JournalEvent, { type: 'usage-recorded' }>): void {
    const key = event.within?.key ?? event.stepKey;
    const span = key ? this.#steps.get(stepId(key, event.within?.occurrence ?? 1)) : undefined;
    if (!span) return;
    // The step is a model call: named and described as the GenAI conventions say.
    span.name = `chat ${event.model}`;
    Object.assign(span.attributes, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': event.provider,
      'gen_ai.request.model': event.model,
      'gen_ai.response.model': event.model,
      'gen_ai.usage.input_tokens': event.inputTokens,
      'gen_ai.usage.output_tokens': event.outputTokens,
    });
    if (event.agent !== null) span.attributes['gen_ai.agent.name'] = event.agent;
    if (event.costUsd !== null) span.attributes['conclave.cost.usd'] = event.costUsd;
    const prompt = event.promptBlob === undefined ? undefined : this.#options.prompts?.get(event.promptBlob);
    if (this.#options.captureContent && prompt) {
      const redact = (text: string) => this.#redact(text);
      span.attributes['gen_ai.input.messages'] = JSON.stringify(inputMessages(prompt, redact));
      if (prompt.system !== undefined) {
        span.attributes['gen_ai.system_instructions'] = JSON.stringify([
          { type: 'text', content: redact(prompt.system) },
        ]);
      }
    }
  }

  #stepEnded(
    event: Extract<JournalEvent, { type: 'step-completed' | 'step-failed' | 'step-skipped' }>,
    at: number,
  ): SpanRecord[] {
    const id = stepId(event.key, event.occurrence);
    const span = this.#steps.get(id);
    if (!span) return [];
    this.#steps.delete(id);
    this.#parentOf(event.key, stringAttribute(span, 'conclave.step.branch'), event.seq, at);
    if (event.type === 'step-failed') {
      span.status = { code: 'error', message: event.error.message };
      span.attributes['error.type'] = event.error.code ?? event.error.name;
      span.attributes['conclave.step.will_retry'] = event.willRetry;
    } else if (event.type === 'step-skipped') {
      span.attributes['conclave.step.skipped'] = event.reason;
    } else {
      const output = event.output;
      if (output && typeof output === 'object' && !Array.isArray(output)) {
        if (typeof output.exitCode === 'number') span.attributes['conclave.shell.exit_code'] = output.exitCode;
        if (this.#options.captureContent && span.attributes['gen_ai.operation.name'] === 'chat') {
          const content = typeof output.content === 'string' ? output.content : '';
          span.attributes['gen_ai.output.messages'] = JSON.stringify([
            { role: 'assistant', parts: [{ type: 'text', content: this.#redact(content) }] },
          ]);
        }
      }
    }
    return [close(span, at)];
  }

  #toolStarted(event: Extract<JournalEvent, { type: 'tool-call-started' }>, at: number): void {
    const within = event.within ? this.#steps.get(stepId(event.within.key, event.within.occurrence)) : undefined;
    const parent =
      within ?? (event.stepKey ? this.#parentOf(event.stepKey, undefined, event.seq, at) : (this.#run as OpenSpan));
    const span = this.#span(`execute_tool ${event.name}`, parent, 'tool', event.seq, at, {
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': event.name,
        'gen_ai.tool.call.id': event.callId,
        ...(this.#options.captureContent
          ? { 'gen_ai.tool.call.arguments': this.#redact(JSON.stringify(event.args)) }
          : {}),
      },
    });
    this.#tools.set(event.callId, span);
    if (event.stepKey) this.#toolSteps.set(event.stepKey, span);
  }

  #toolEnded(event: Extract<JournalEvent, { type: 'tool-call-completed' }>, at: number): SpanRecord[] {
    const span = this.#tools.get(event.callId);
    if (!span) return [];
    this.#tools.delete(event.callId);
    for (const [key, each] of this.#toolSteps) if (each === span) this.#toolSteps.delete(key);
    const result = typeof event.result === 'string' ? event.result : JSON.stringify(event.result);
    // What a tool answered is content (a file's text, a command's output), its error too.
    if (this.#options.captureContent) span.attributes['gen_ai.tool.call.result'] = this.#redact(result);
    if (event.isError) {
      span.status = {
        code: 'error',
        message: this.#options.captureContent ? truncate(this.#redact(result)) : 'the tool answered with an error',
      };
    }
    return [close(span, at)];
  }

  /** Any other event inside a step keeps that step's round, workflow step and item open until then. */
  #touch(event: JournalEvent, at: number): void {
    if (!event.within) return;
    const step = this.#steps.get(stepId(event.within.key, event.within.occurrence));
    if (step) this.#parentOf(event.within.key, stringAttribute(step, 'conclave.step.branch'), event.seq, at);
  }

  #redact(text: string): string {
    return this.#options.redact ? this.#options.redact(text) : text;
  }
}

/** Every span of a whole journal (runs that never stopped end at their last event). */
export function spansOfJournal(
  sessionId: string,
  events: Iterable<JournalEvent>,
  options: JournalSpanOptions,
): SpanRecord[] {
  const spans = new JournalSpans(sessionId, options);
  const all: SpanRecord[] = [];
  for (const event of events) all.push(...spans.add(event));
  all.push(...spans.finish());
  return all;
}

const stepId = (key: string, occurrence: number) => `${key}#${occurrence}`;

const stringAttribute = (span: OpenSpan, name: string): string | undefined => {
  const value = span.attributes[name];
  return typeof value === 'string' ? value : undefined;
};

function close(span: OpenSpan, at: number): SpanRecord {
  const { container: _container, ...record } = span;
  return { ...record, endMs: Math.max(span.startMs, at) };
}

const truncate = (text: string) => (text.length > 500 ? `${text.slice(0, 500)}…` : text);

/** A step key's round (`round-2/critic`), chunk, turn or workflow step (`step[review]/…`), if it has one. */
function groupOf(key: string): { id: string; name: string; attributes: SpanAttributes } | null {
  const round = /^(round|chunk|turn)-(\d+)\//.exec(key);
  if (round) {
    const [, unit, number] = round as unknown as [string, string, string];
    return { id: `${unit}-${number}`, name: `${unit} ${number}`, attributes: { [`conclave.${unit}`]: Number(number) } };
  }
  const step = /^step\[([^\]]+)\]/.exec(key);
  if (step) {
    const id = step[1] as string;
    return { id: `step[${id}]`, name: `workflow step ${id}`, attributes: { 'conclave.workflow.step': id } };
  }
  return null;
}

/** A step's key without the round, workflow step or item its span sits under (the full key is an attribute). */
const shortKey = (key: string): string =>
  key.replace(/^(?:(?:round|chunk|turn)-\d+|step\[[^\]]+\])\/(?:item\/[^/]+\/)?/, '') || key;

/** A map step's item branch (`map:<step>:<item id, URI-encoded>`). */
function itemOf(branch: string): { step: string; id: string } | null {
  const match = /^map:([^:]+):(.+)$/.exec(branch);
  if (!match) return null;
  let id = match[2] as string;
  try {
    id = decodeURIComponent(id);
  } catch {
    // Not encoded: the segment is the id.
  }
  return { step: match[1] as string, id };
}

/** A prompt as the GenAI semantic conventions' `gen_ai.input.messages` shape it: role and parts. */
function inputMessages(copy: PromptCopy, redact: (text: string) => string): unknown[] {
  return copy.messages.map((message) => {
    const parts: unknown[] = [];
    if (message.role === 'tool') {
      parts.push({ type: 'tool_call_response', id: message.toolCallId ?? null, response: redact(message.content) });
    } else if (message.content !== '' || !message.toolCalls?.length) {
      parts.push({ type: 'text', content: redact(message.content) });
    }
    for (const call of message.toolCalls ?? []) {
      parts.push({
        type: 'tool_call',
        id: call.id,
        name: call.name,
        arguments: redact(JSON.stringify(call.args ?? null)),
      });
    }
    return { role: message.role, parts, ...(message.speaker ? { name: message.speaker } : {}) };
  });
}
