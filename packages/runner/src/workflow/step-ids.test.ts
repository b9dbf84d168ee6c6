import { describe, expect, it } from 'vitest';
import { stepIdOfKey, stepKeyPrefix, workflowStepIds } from './step-ids.js';

describe('stable step ids', () => {
  it('take id:, then name:, then the kind and content, and tell equal ones apart in order', () => {
    const ids = workflowStepIds([
      { id: 'build', shell: 'make' },
      { name: 'tests', shell: 'npm test' },
      { shell: 'npm test' },
      { shell: ' npm test ' },
      { agent: 'writer', input: 'Write' },
      { agent: 'writer' },
    ]);
    expect(ids[0]).toBe('build');
    expect(ids[1]).toBe('tests');
    expect(ids[2]).toMatch(/^shell-[0-9a-f]{8}$/);
    expect(ids[3]).toBe(`${ids[2]}~2`);
    expect(ids[4]).toMatch(/^agent-writer-[0-9a-f]{8}$/);
    expect(ids[5]).not.toBe(ids[4]);
  });

  it('do not depend on the steps around them', () => {
    const [alone] = workflowStepIds([{ shell: 'npm test' }]);
    const [, afterInsert] = workflowStepIds([{ agent: 'a', input: 'x' }, { shell: 'npm test' }]);
    expect(afterInsert).toBe(alone);
  });

  it('make keys by id, or by position for sessions recorded before ids', () => {
    expect(stepKeyPrefix('id', 4, 'tests')).toBe('step[tests]');
    expect(stepKeyPrefix('position', 4, 'tests')).toBe('step-5');
    expect(stepIdOfKey('step[tests]/shell')).toBe('tests');
    expect(stepIdOfKey('step[tests]/on-failure-2')).toBe('tests');
    expect(stepIdOfKey('step-5/shell')).toBeNull();
  });
});
