import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderTemplate, templateReferences } from './template.js';

const location = { file: 'flow.yaml', key: 'steps[1].input' };

describe('renderTemplate', () => {
  it('fills variables, step responses, the last response and the error', () => {
    const scope = {
      variables: { topic: 'agents' },
      steps: [{ response: 'first' }],
      lastResponse: 'latest',
      error: 'exit 1',
    };
    expect(
      renderTemplate('{{topic}} / {{ steps[0].response }} / {{ last_response }} / {{ error }}', scope, location),
    ).toBe('agents / first / latest / exit 1');
  });

  it("renders a shell step's exit code and whether it was skipped", () => {
    const scope = {
      variables: {},
      steps: [
        { response: 'ok', exitCode: 0, skipped: false },
        { response: '', exitCode: null, skipped: true },
      ],
    };
    const text = '{{ steps[0].exit_code }}/{{ steps[0].skipped }} {{ steps[1].exit_code }}/{{ steps[1].skipped }}';
    expect(renderTemplate(text, scope, location)).toBe('0/false /true');
  });

  it('fails with the location on an unknown variable instead of rendering nothing', () => {
    expect(() => renderTemplate('{{ nope }}', { variables: {} }, location)).toThrow(/flow.yaml at steps\[1\].input/);
  });

  it('rejects expressions that are not references', () => {
    expect(() => templateReferences('{{ topic | upper }}', location)).toThrow(/not a template reference/);
  });

  it('leaves text without placeholders unchanged and never re-expands substituted values', () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => !text.includes('{{')),
        fc.string(),
        (text, value) => {
          expect(renderTemplate(text, { variables: {} }, location)).toBe(text);
          expect(renderTemplate('{{ v }}', { variables: { v: value } }, location)).toBe(value);
        },
      ),
    );
  });
});
