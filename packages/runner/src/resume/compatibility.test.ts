import { JOURNAL_FORMAT_VERSION } from '@resume/core/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { journal } from './__fixtures__/journal-builder.js';
import { checkCompatibility } from './compatibility.js';
import { hashSpec, specSimilarity, specStructure } from './spec-text.js';

const spec = `name: research-chain
variables: { topic: "AI agents" }
agents:
  researcher: { prompt: "You research {{ topic }}.", model: gpt-4o }
  writer:     { prompt: "You write short reports." }
steps:
  - agent: researcher
    input: "Research {{ topic }} in depth and list the three most important findings."
  - agent: writer
    input: "Write a report from:\\n{{ steps[0].response }}"
`;

function chainSession(text = spec) {
  const builder = journal({ mode: 'chain', specHash: hashSpec(text) });
  builder.add({
    type: 'spec-recorded',
    kind: 'workflow',
    path: 'chain.yaml',
    hash: hashSpec(text),
    blob: null,
    content: text,
  });
  builder.message('user', 'Research AI agents');
  builder.completedStep('step 1 researcher', 'findings');
  builder.message('assistant', 'Here are the findings.', { speaker: 'researcher' });
  builder.usage('gpt-4o', 'researcher', 100, 200, 0.002);
  return builder;
}

describe('checkCompatibility', () => {
  it('is ok when nothing changed, whatever the line endings and trailing spaces', () => {
    const state = chainSession().state();
    const report = checkCompatibility({ state, spec: { text: `${spec.replace(/\n/g, '  \r\n')}\n\n` } });
    expect(report).toEqual({ level: 'ok', findings: [], similarity: null, suggestions: [] });
  });

  it('warns on a cosmetic edit and reports the similarity', () => {
    const state = chainSession().state();
    const edited = spec.replace('three most important findings', 'three most relevant findings');
    const report = checkCompatibility({ state, spec: { text: edited } });
    expect(report.level).toBe('warn');
    expect(report.findings.map((finding) => finding.kind)).toEqual(['spec-changed']);
    expect(report.similarity).toBeGreaterThan(0.9);
    expect(report.similarity).toBeLessThan(1);
    expect(report.findings[0]?.message).toMatch(/changed since the session started \(\d+% similar\)/);
    expect(report.suggestions.map((suggestion) => suggestion.kind)).toEqual(['restart', 'keep-context-restart']);
  });

  it('never calls a changed spec 100% similar', () => {
    const long = `${spec}${Array.from({ length: 60 }, (_, index) => `# note ${index} about the research chain\n`).join('')}`;
    const state = chainSession(long).state();
    const report = checkCompatibility({ state, spec: { text: long.replace('note 59', 'note 60') } });
    expect(report.similarity).toBeGreaterThan(0.995);
    expect(report.findings[0]?.message).toBe('the spec changed since the session started (99% similar)');
  });

  it('blocks when an agent that already spoke was removed', () => {
    const state = chainSession().state();
    const edited = spec
      .replace('  researcher: { prompt: "You research {{ topic }}.", model: gpt-4o }\n', '')
      .replace(
        '  - agent: researcher\n    input: "Research {{ topic }} in depth and list the three most important findings."\n',
        '',
      );
    const report = checkCompatibility({ state, spec: { text: edited } });
    expect(report.level).toBe('block');
    const removed = report.findings.find((finding) => finding.kind === 'agent-removed');
    expect(removed).toMatchObject({ agent: 'researcher', ran: true, level: 'block' });
    expect(report.findings.some((finding) => finding.kind === 'step-changed')).toBe(true);
    expect(report.suggestions.map((suggestion) => suggestion.kind)).toEqual([
      'restart',
      'keep-context-restart',
      'force',
    ]);
  });

  it('only warns when the removed agent never ran and later steps may change', () => {
    const state = chainSession().state();
    const edited = spec
      .replace('  writer:     { prompt: "You write short reports." }\n', '  editor: { prompt: "You edit." }\n')
      .replace('  - agent: writer\n', '  - agent: editor\n');
    const report = checkCompatibility({ state, spec: { text: edited }, completedSpecSteps: 1 });
    expect(report.level).toBe('warn');
    expect(report.findings.find((finding) => finding.kind === 'agent-removed')).toMatchObject({
      agent: 'writer',
      ran: false,
    });
  });

  it('blocks a spec that was rewritten', () => {
    const state = chainSession('Evaluate whether a tiny team should build its own database engine.').state();
    const report = checkCompatibility({ state, spec: { text: 'Write a poem about the sea, in French, with rhymes.' } });
    expect(report.level).toBe('block');
    expect(report.similarity).toBeLessThan(0.5);
  });

  it('blocks when a tool the session used is missing now', () => {
    const builder = chainSession();
    builder.add({ type: 'tool-call-started', callId: 'c1', name: 'run_command', args: { command: 'npm test' } });
    builder.add({ type: 'tool-call-completed', callId: 'c1', name: 'run_command', result: { exitCode: 0 } });
    const report = checkCompatibility({ state: builder.state(), availableTools: ['read_file', 'write_file'] });
    expect(report.level).toBe('block');
    expect(report.findings).toEqual([
      expect.objectContaining({ kind: 'tool-missing', tool: 'run_command', level: 'block' }),
    ]);
  });

  it('warns with choices when a model the session used is unavailable', () => {
    const report = checkCompatibility({ state: chainSession().state(), availableModels: ['gpt-4.1', 'o3'] });
    expect(report.level).toBe('warn');
    expect(report.findings).toEqual([
      expect.objectContaining({
        kind: 'model-unavailable',
        model: 'gpt-4o',
        agents: ['researcher'],
        choices: ['use-same-model', 'use-other-model', 'cancel'],
      }),
    ]);
    expect(report.suggestions.map((suggestion) => suggestion.kind)).toEqual(['use-other-model']);
  });

  it('judges a dated snapshot the provider answered with by the model id it belongs to', () => {
    const builder = chainSession();
    builder.usage('gpt-4o-2024-08-06', 'researcher', 100, 200, 0.002);
    expect(checkCompatibility({ state: builder.state(), availableModels: ['gpt-4o', 'o3'] }).level).toBe('ok');
    const gone = checkCompatibility({ state: builder.state(), availableModels: ['gpt-4.1'] });
    expect(gone.findings.map((finding) => (finding.kind === 'model-unavailable' ? finding.model : null))).toEqual([
      'gpt-4o',
    ]);
  });

  it('skips the model check when the provider cannot list its models', () => {
    expect(checkCompatibility({ state: chainSession().state(), availableModels: null }).level).toBe('ok');
  });

  it('blocks a journal written in a newer format', () => {
    const state = journal({ formatVersion: JOURNAL_FORMAT_VERSION + 1 }).state();
    const report = checkCompatibility({ state });
    expect(report.level).toBe('block');
    expect(report.findings[0]).toMatchObject({ kind: 'format-newer', sessionVersion: JOURNAL_FORMAT_VERSION + 1 });
    expect(report.suggestions.map((suggestion) => suggestion.kind)).toEqual(['upgrade']);
  });
});

describe('spec text', () => {
  it('hashes normalized text', () => {
    expect(hashSpec('a\r\nb  \n\n')).toBe(hashSpec('a\nb'));
    expect(hashSpec('a\nb')).not.toBe(hashSpec('a\nc'));
    expect(hashSpec('x')).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('similarity is 1 for equal texts, symmetric and within [0, 1]', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 }), (left, right) => {
        const forward = specSimilarity(left, right);
        expect(forward).toBeGreaterThanOrEqual(0);
        expect(forward).toBeLessThanOrEqual(1);
        expect(specSimilarity(left, left)).toBe(1);
        expect(forward).toBeCloseTo(specSimilarity(right, left), 10);
      }),
    );
  });

  it('stays low for a long rewrite and high for a small edit of a long spec', () => {
    const long = Array.from(
      { length: 400 },
      (_, index) => `line ${index}: the agent does step ${index} with care.`,
    ).join('\n');
    const rewrite = Array.from({ length: 400 }, (_, index) => `other ${index * 7} text entirely different`).join('\n');
    expect(specSimilarity(long, rewrite)).toBeLessThan(0.5);
    expect(specSimilarity(long, long.replace('step 200', 'phase 200'))).toBeGreaterThan(0.99);
  });

  it('reads the structure of a workflow spec and nothing from plain text', () => {
    expect(specStructure(spec)).toEqual({
      agents: ['researcher', 'writer'],
      steps: ['agent:researcher', 'agent:writer'],
      kinds: ['an agent step (agent researcher)', 'an agent step (agent writer)'],
      ids: [
        expect.stringMatching(/^agent-researcher-[0-9a-f]{8}$/),
        expect.stringMatching(/^agent-writer-[0-9a-f]{8}$/),
      ],
    });
    expect(specStructure('Evaluate my idea: a brain for AI agents.')).toBeNull();
  });
});
