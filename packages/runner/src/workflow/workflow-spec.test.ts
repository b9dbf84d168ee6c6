import { ConfigError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../exit-codes/exit-codes.js';
import { configError } from './__fixtures__/spec-error.js';
import { checkParallelLimit, parseWorkflowSpec, resolveVariables } from './workflow-spec.js';

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

describe('parseWorkflowSpec', () => {
  it('accepts the binding format of docs/architecture.md', () => {
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
    expect(exitCodeFor(error)).toBe(64);
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

  it('says the first step has no earlier step to refer to, and which steps a later one may read', () => {
    const first = configError(valid.replace('Research {{ topic }}', 'Research {{ steps[0].response }}'));
    expect(first.key).toBe('steps[0].input');
    expect(first.hint).toBe(
      'Step 1 is the first step: it cannot refer to any earlier step. Use a variable, or move it after the step it reads.',
    );
    const third = configError(valid.replace('{{ steps[0].response }}', '{{ steps[2].response }}'));
    expect(third.hint).toBe(
      'Templates index steps from 0 (steps[0] is step 1); step 3 may refer to steps[0] to steps[1].',
    );
    const second = configError(valid.replace('"npm test"', '"echo {{ steps[1].response }}"'));
    expect(second.hint).toBe('Templates index steps from 0 (steps[0] is step 1); step 2 may refer to steps[0] only.');
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

const mapped = `
name: reviews
agents:
  reviewer: { prompt: "You review." }
  writer: { prompt: "You summarize." }
steps:
  - id: find
    shell: "ls"
  - id: review
    map:
      items: [a, { id: b, path: b.ts }]
      parallel: 2
      do:
        - id: lint
          shell: "lint {{ item.path }}"
          retry: { attempts: 2 }
        - agent: reviewer
          input: "Review {{ item }} ({{ item_id }}, {{ item_index }}): {{ steps.lint.output }}"
      reduce: { agent: writer, input: "Summarize {{ map.results }} ({{ map.failed }} failed)" }
  - agent: writer
    input: "{{ steps.review.output }} {{ steps.find.output }}"
`;

describe('parseWorkflowSpec: map steps', () => {
  it('accepts a map step with items, do, parallel and reduce', () => {
    const spec = parseWorkflowSpec(mapped, 'flow.yaml');
    expect(spec.steps[1]).toMatchObject({
      id: 'review',
      map: { parallel: 2, items: ['a', { id: 'b', path: 'b.ts' }] },
    });
    const fromFile = parseWorkflowSpec(mapped.replace('[a, { id: b, path: b.ts }]', '{ file: items.jsonl }'), 'f.yaml');
    expect(fromFile.steps[1]).toMatchObject({ map: { items: { file: 'items.jsonl' }, parallel: 2 } });
    const globbed = parseWorkflowSpec(mapped.replace('[a, { id: b, path: b.ts }]', '{ glob: "src/*.ts" }'), 'f.yaml');
    expect(globbed.steps[1]).toMatchObject({ map: { items: { glob: 'src/*.ts' } } });
    const found = parseWorkflowSpec(
      mapped.replace('[a, { id: b, path: b.ts }]', '"{{ steps.find.output }}"'),
      'f.yaml',
    );
    expect(found.steps[1]).toMatchObject({ map: { items: { template: '{{ steps.find.output }}' } } });
  });

  it('defaults to one item at a time', () => {
    const spec = parseWorkflowSpec(mapped.replace('      parallel: 2\n', ''), 'flow.yaml');
    expect(spec.steps[1]).toMatchObject({ map: { parallel: 1 } });
  });

  it('names the field and the fix for bad items, parallel and do', () => {
    const items = configError(mapped.replace('[a, { id: b, path: b.ts }]', '{ url: "http://x" }'));
    expect(items.key).toBe('steps[1].map.items');
    expect(items.hint).toContain('{ file: items.json }');
    expect(configError(mapped.replace('[a, { id: b, path: b.ts }]', '"not a template"')).key).toBe(
      'steps[1].map.items',
    );
    expect(configError(mapped.replace('[a, { id: b, path: b.ts }]', '{ file: ../outside.json }')).key).toBe(
      'steps[1].map.items.file',
    );
    const parallel = configError(mapped.replace('parallel: 2', 'parallel: 0'));
    expect(parallel.key).toBe('steps[1].map.parallel');
    expect(parallel.message).toContain('at least 1');
    expect(configError(mapped.replace('parallel: 2', 'parallel: 1.5')).key).toBe('steps[1].map.parallel');
    const missingDo = configError(mapped.replace('      do:\n', '      steps:\n'));
    expect(missingDo.key).toBe('steps[1].map.do');
    expect(missingDo.message).toContain('a map step needs do:');
    expect(missingDo.message).toContain('steps[1].map: unknown key "steps"');
    expect(
      configError(mapped.replace('          retry: { attempts: 2 }', '          retry: { attempts: 0 }')).key,
    ).toBe('steps[1].map.do[0].retry.attempts');
  });

  it('refuses a map inside a map, and a step that is both', () => {
    const nested = mapped.replace(
      '        - id: lint\n',
      '        - map: { items: [x], do: [{ shell: "true" }] }\n        - id: lint\n',
    );
    expect(configError(nested).message).toContain(
      'a map step runs on its own: not inside a parallel group or another map step',
    );
    expect(configError(mapped.replace('  - id: review\n', '  - id: review\n    shell: "x"\n')).message).toContain(
      'a map step has `map:` only',
    );
  });

  it('checks agents and templates inside do and reduce', () => {
    expect(configError(mapped.replace('- agent: reviewer', '- agent: critic')).key).toBe('steps[1].map.do[1].agent');
    expect(configError(mapped.replace('{{ steps.lint.output }}', '{{ steps.nope.output }}')).message).toContain(
      'no step has the id "nope"',
    );
    expect(configError(mapped.replace('({{ map.failed }} failed)', '{{ item }}')).key).toBe(
      'steps[1].map.reduce.input',
    );
  });

  it('allows {{ item }} only in do: and {{ map.results }} only in reduce:', () => {
    const item = configError(mapped.replace('{{ steps.review.output }}', '{{ item.path }}'));
    expect(item.key).toBe('steps[2].input');
    expect(item.message).toContain('only available in the do: steps of a map step');
    const results = configError(mapped.replace('{{ steps.review.output }}', '{{ map.results }}'));
    expect(results.message).toContain('only available in map.reduce');
    expect(results.hint).toContain('{{ steps.<id>.output }}');
  });

  it('refers to later steps by id only after they ran, and refuses exit_code of a map step', () => {
    expect(configError(mapped.replace('{{ steps.lint.output }}', '{{ steps.review.output }}')).message).toContain(
      'refers to a step that has not run yet',
    );
    expect(configError(mapped.replace('{{ steps.review.output }}', '{{ steps.review.exit_code }}')).message).toContain(
      'a map step, which has no exit code',
    );
  });

  it('refuses parallel above the configured limit, naming the setting', () => {
    const spec = parseWorkflowSpec(mapped, 'flow.yaml');
    expect(() => checkParallelLimit(spec, 'flow.yaml', 2)).not.toThrow();
    let error: unknown;
    try {
      checkParallelLimit(spec, 'flow.yaml', 1);
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error) && error.key).toBe('steps[1].map.parallel');
    expect((error as ConfigError).hint).toContain('limits.maxParallel');
  });
});

describe('parseWorkflowSpec: sleep steps', () => {
  const napping = (step: string) => `
name: nap
steps:
  - shell: "echo one"
${step}
  - shell: "echo two"
`;

  it('reads sleep: as a duration and sleep_until: as a time with its zone', () => {
    const spec = parseWorkflowSpec(napping('  - sleep: 10m\n  - sleep_until: "2026-12-01T09:00:00+01:00"'), 'nap.yaml');
    expect(spec.steps[1]).toEqual({ sleep: 600_000 });
    expect(spec.steps[2]).toEqual({ sleep_until: '2026-12-01T09:00:00+01:00' });
  });

  it('names the step and the fix for a bad duration, a time without its zone, or a step that is two things', () => {
    expect(configError(napping('  - sleep: soon')).message).toContain('flow.yaml at steps[1].sleep');
    const noZone = configError(napping('  - sleep_until: "2026-12-01 09:00"'));
    expect(noZone.key).toBe('steps[1].sleep_until');
    expect(noZone.message).toContain('ISO time with its zone');
    expect(configError(napping('  - sleep: 1m\n    shell: "echo"')).message).toContain(
      'a sleep step has `sleep:` only, not `shell:`',
    );
    const inGroup = configError(napping('  - parallel:\n      - sleep: 1m'));
    expect(inGroup.message).toContain('a sleep step runs on its own on the main line');
  });

  it('refuses a template that reads a sleep step', () => {
    const error = configError(napping('  - sleep: 1s\n    id: nap\n  - shell: "echo {{ steps.nap.output }}"'));
    expect(error.message).toContain('refers to a sleep step, which has no output');
  });
});
