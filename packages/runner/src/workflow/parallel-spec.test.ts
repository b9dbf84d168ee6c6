import { describe, expect, it } from 'vitest';
import { configError } from './__fixtures__/spec-error.js';
import { workflowStepTree } from './step-ids.js';
import { parseWorkflowSpec } from './workflow-spec.js';

const valid = `
name: checks
agents:
  reviewer: { prompt: "You review." }
steps:
  - id: plan
    agent: reviewer
    input: "Plan the checks"
  - id: checks
    max_concurrency: 2
    parallel:
      - id: lint
        shell: "npm run lint"
        retry: { attempts: 2, backoff: 1s }
        on_failure: { agent: reviewer, input: "Lint failed: {{ error }}" }
      - id: test
        shell: "npm test"
      - id: review
        agent: reviewer
        input: "Review {{ steps.plan.output }}"
  - agent: reviewer
    input: "lint={{ steps.lint.output }} ({{ steps.lint.exit_code }}) review={{ steps.review.output }} {{ last_response }}"
`;

describe('parallel groups in workflow specs', () => {
  it('accepts a group of agent and shell steps with their usual fields', () => {
    const spec = parseWorkflowSpec(valid, 'flow.yaml');
    expect(spec.steps[1]).toMatchObject({
      id: 'checks',
      max_concurrency: 2,
      parallel: [
        { id: 'lint', shell: 'npm run lint', retry: { attempts: 2, backoff: 1000 }, on_failure: { agent: 'reviewer' } },
        { id: 'test', shell: 'npm test' },
        { id: 'review', agent: 'reviewer', input: 'Review {{ steps.plan.output }}' },
      ],
    });
  });

  it('gives every step of a group an id of its own, in the namespace of all steps', () => {
    const spec = parseWorkflowSpec(
      `
name: ids
steps:
  - shell: "make"
  - parallel:
      - shell: "make"
      - { name: second, shell: "make check" }
`,
      'flow.yaml',
    );
    const [first, group] = workflowStepTree(spec.steps);
    expect(group?.id).toMatch(/^parallel-[0-9a-f]{8}$/);
    expect(group?.members).toEqual([`${first?.id}~2`, 'second']);
  });

  it('refuses a nested group, naming where it is and how to write it instead', () => {
    const error = configError(
      valid.replace('      - id: test\n', '      - parallel: [{ shell: "a" }]\n        id: test\n'),
    );
    expect(error.key).toBe('steps[1].parallel[1]');
    expect(error.message).toContain('flow.yaml at steps[1].parallel[1]');
    expect(error.message).toContain('parallel groups do not nest');
    expect(error.hint).toContain('put them all in one group');
  });

  it('refuses an empty group and a max_concurrency below 1', () => {
    const empty = configError('name: x\nsteps:\n  - parallel: []\n');
    expect(empty.key).toBe('steps[0].parallel');
    expect(empty.message).toContain('at least one step');
    expect(empty.hint).toContain('parallel:');
    const zero = configError(valid.replace('max_concurrency: 2', 'max_concurrency: 0'));
    expect(zero.key).toBe('steps[1].max_concurrency');
  });

  it('refuses a step that is both a group and an agent step, and errors inside a member with their path', () => {
    expect(configError('name: x\nsteps:\n  - parallel: [{ shell: a }]\n    shell: b\n').message).toContain('not both');
    const retry = configError(valid.replace('attempts: 2', 'attempts: 0'));
    expect(retry.key).toBe('steps[1].parallel[0].retry.attempts');
    expect(retry.hint).toContain('total number of tries');
    expect(configError(valid.replace('- id: test\n        shell:', '- id: test\n        shel:')).key).toBe(
      'steps[1].parallel[1]',
    );
  });

  it('refuses an id used twice, inside a group or across groups', () => {
    const inside = configError(valid.replace('- id: test', '- id: lint'));
    expect(inside.key).toBe('steps[1].parallel[1].id');
    expect(inside.message).toContain('step id "lint" is already used by steps[1].parallel[0]');
    const across = configError(valid.replace('- id: review', '- id: plan'));
    expect(across.key).toBe('steps[1].parallel[2].id');
    expect(across.message).toContain('steps[0]');
  });

  it('refuses unknown agents in a group with the group step path', () => {
    expect(
      configError(valid.replace('agent: reviewer\n        input: "Review', 'agent: critic\n        input: "Review'))
        .key,
    ).toBe('steps[1].parallel[2].agent');
  });

  it('refuses a template reading a step of the same group: it runs at the same time', () => {
    const error = configError(valid.replace('Review {{ steps.plan.output }}', 'Review {{ steps.lint.output }}'));
    expect(error.key).toBe('steps[1].parallel[2].input');
    expect(error.message).toContain('same parallel group');
    expect(error.hint).toContain('after the group');
  });

  it('refuses templates reading a later step, an unknown id, the group itself, or an agent step\u2019s exit code', () => {
    expect(configError(valid.replace('Plan the checks', 'Plan {{ steps.test.output }}')).message).toContain(
      'has not run yet',
    );
    const unknown = configError(valid.replace('{{ steps.lint.output }}', '{{ steps.lnt.output }}'));
    expect(unknown.message).toContain('no step has the id "lnt"');
    expect(unknown.hint).toContain('plan, checks, lint, test, review');
    expect(configError(valid.replace('{{ steps.lint.output }}', '{{ steps.checks.output }}')).message).toContain(
      'parallel group, which has no output',
    );
    expect(configError(valid.replace('{{ steps.lint.output }}', '{{ steps[1].response }}')).message).toContain(
      'parallel group, which has no output',
    );
    expect(configError(valid.replace('{{ steps.lint.exit_code }}', '{{ steps.review.exit_code }}')).message).toContain(
      'agent step, which has no exit code',
    );
  });
});
