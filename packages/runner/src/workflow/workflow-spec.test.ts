import { ConfigError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { parseWorkflowSpec, resolveVariables } from './workflow-spec.js';

const valid = `
name: research-chain
variables: { topic: "AI agents" }
agents:
  researcher: { prompt: "You research {{ topic }}.", model: gpt-4o }
  writer:     { prompt: "You write short reports." }
steps:
  - agent: researcher
    input: "Research {{ topic }}"
  - shell: "npm test"
    retry: { attempts: 5, backoff: 1s }
    on_failure: { agent: researcher, input: "Tests failed:\\n{{ error }}\\nFix them." }
  - agent: writer
    input: "Write a report from:\\n{{ steps[0].response }}"
outputs:
  artifacts:
    - { path: report.md, from: "{{ last_response }}" }
`;

function configError(text: string): ConfigError {
  try {
    parseWorkflowSpec(text, 'flow.yaml');
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseWorkflowSpec', () => {
  it('accepts the format of DESIGN 7', () => {
    const spec = parseWorkflowSpec(valid, 'flow.yaml');
    expect(spec.name).toBe('research-chain');
    expect(spec.steps).toHaveLength(3);
    expect(spec.steps[1]).toMatchObject({ shell: 'npm test', retry: { attempts: 5, backoff: 1000 } });
    expect(spec.outputs.artifacts[0]).toEqual({ path: 'report.md', from: '{{ last_response }}' });
  });

  it('names the file, the path in the document and the fix for a bad retry', () => {
    const error = configError(valid.replace('attempts: 5', 'attempts: 0'));
    expect(error.message).toContain('flow.yaml at steps[1].retry.attempts');
    expect(error.hint).toContain('attempts');
    expect(error.exitCode).toBe(64);
  });

  it('rejects a malformed backoff with its path', () => {
    expect(configError(valid.replace('backoff: 1s', 'backoff: soon')).key).toBe('steps[1].retry.backoff');
  });

  it('catches unknown agent names before running', () => {
    const error = configError(valid.replace('- agent: writer', '- agent: editor'));
    expect(error.key).toBe('steps[2].agent');
    expect(error.message).toContain('unknown agent "editor"');
    expect(error.hint).toContain('researcher, writer');
  });

  it('catches unknown on_failure agents', () => {
    expect(configError(valid.replace('{ agent: researcher, input: "Tests', '{ agent: fixer, input: "Tests')).key).toBe(
      'steps[1].on_failure.agent',
    );
  });

  it('rejects unknown variables and references to later steps', () => {
    expect(configError(valid.replace('Research {{ topic }}', 'Research {{ subject }}')).message).toContain(
      'unknown variable',
    );
    expect(configError(valid.replace('{{ steps[0].response }}', '{{ steps[2].response }}')).key).toBe('steps[2].input');
  });

  it('allows {{ error }} only in on_failure', () => {
    expect(configError(valid.replace('Research {{ topic }}', 'Research {{ error }}')).key).toBe('steps[0].input');
  });

  it('rejects a step that is neither agent nor shell, and typos in keys', () => {
    expect(configError(valid.replace('- agent: writer', '- agnt: writer')).key).toBe('steps[2]');
    expect(configError(valid.replace('retry: {', 'retries: {')).key).toBe('steps[1]');
  });

  it('keeps artifacts inside the workspace', () => {
    expect(configError(valid.replace('path: report.md', 'path: ../report.md')).key).toBe('outputs.artifacts[0].path');
  });

  it('reports invalid YAML with the file and line, and no dangling excerpt marker', () => {
    const error = configError('name: demo\nsteps:\n  - run: [unclosed\n    shell: x\n');
    expect(error.message).toMatch(/^flow\.yaml:\d+: not valid YAML: \S.*[^:]$/m);
    expect(error.message).not.toMatch(/column \d+:/);
  });

  it('lets --var override declared variables only', () => {
    const spec = parseWorkflowSpec(valid, 'flow.yaml');
    expect(resolveVariables(spec, 'flow.yaml', { topic: 'X' })).toEqual({ topic: 'X' });
    expect(() => resolveVariables(spec, 'flow.yaml', { colour: 'red' })).toThrow(/does not declare/);
  });
});
