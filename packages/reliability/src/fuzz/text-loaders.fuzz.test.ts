// Fuzzing the text loaders a user feeds Conclave: config files, workflow specs,
// prompt files and the templates inside them. Inputs are random text, random
// JSON/YAML structures and random edits of valid documents. Every input either
// loads or is refused with a typed ConclaveError whose message names the file;
// no other exception ever escapes.

import { ConclaveError } from '@resume/core/spec';
import {
  checkWorkflow,
  parseConfigText,
  parsePromptFile,
  parseWorkflowSpec,
  renderTemplate,
  resolveVariables,
} from '@resume/runner';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sized, sizedTimeout } from '../support/stress.js';

const RUNS = sized(600, 4_000);

const validConfig = `agents:
  - name: analyst
    model: gpt-4o
    provider: openai
    systemPrompt: You analyse.
judge:
  model: gpt-4o-mini
providers:
  openai:
    baseUrl: http://localhost:11434/v1
checkpoint:
  snapshotEvery: 500
retention:
  maxAgeDays: 30
  minKeep: 5
`;

const validSpec = `name: research-chain
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

const validPrompt = `---
model: gpt-4o
tools: [read_file, write_file]
---
Read {{ file }} and summarise it.
`;

/** Random edits of a valid document: characters inserted, deleted or replaced at random places. */
function mutated(document: string): fc.Arbitrary<string> {
  const edit = fc.record({
    position: fc.nat(),
    remove: fc.nat(8),
    insert: fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom(
        ':',
        '-',
        '{',
        '}',
        '[',
        ']',
        '"',
        "'",
        '\n',
        '  ',
        '{{',
        '}}',
        '---',
        '\t',
        '&a',
        '*a',
        '!!',
        '#',
      ),
    ),
  });
  return fc.array(edit, { minLength: 1, maxLength: 6 }).map((edits) =>
    edits.reduce((text, { position, remove, insert }) => {
      const at = text.length === 0 ? 0 : position % text.length;
      return text.slice(0, at) + insert + text.slice(at + remove);
    }, document),
  );
}

function documents(valid: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(valid) },
    { weight: 4, arbitrary: mutated(valid) },
    { weight: 2, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '---',
        '---\n---',
        '~',
        'null',
        '[]',
        '&a [*a]',
        'a: *missing',
        '!!js/function "x"',
        // An alias bomb ("billion laughs").
        'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
      ),
    },
  );
}

/** Runs a loader: it may return, or refuse with a typed error that names the file. */
function loadsOrRefuses(file: string, load: () => unknown): 'loaded' | 'refused' {
  try {
    load();
    return 'loaded';
  } catch (error) {
    if (!ConclaveError.isInstance(error)) throw error;
    expect(error.message.length).toBeGreaterThan(10);
    expect(error.message).toContain(file);
    return 'refused';
  }
}

describe('text loaders under fuzzing', () => {
  it(
    `config files: ${RUNS} inputs load or are refused naming the file`,
    () => {
      const seen = { loaded: 0, refused: 0 };
      fc.assert(
        fc.property(documents(validConfig), (text) => {
          seen[loadsOrRefuses('/work/.conclave.yaml', () => parseConfigText(text, '/work/.conclave.yaml'))] += 1;
        }),
        { numRuns: RUNS },
      );
      expect(seen.refused).toBeGreaterThan(0);
      expect(seen.loaded).toBeGreaterThan(0);
    },
    sizedTimeout(60_000, 600_000),
  );

  it(
    `workflow specs: ${RUNS} inputs parse, check and resolve variables or are refused naming the file`,
    () => {
      const seen = { loaded: 0, refused: 0 };
      fc.assert(
        fc.property(
          documents(validSpec),
          fc.oneof(
            fc.constant({}),
            fc.dictionary(fc.constantFrom('topic', 'other'), fc.string({ maxLength: 20 }), { maxKeys: 2 }),
            fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
          ),
          (text, overrides) => {
            const outcome = loadsOrRefuses('spec.yaml', () => {
              const spec = parseWorkflowSpec(text, 'spec.yaml');
              checkWorkflow(spec, 'spec.yaml');
              resolveVariables(spec, 'spec.yaml', overrides);
            });
            seen[outcome] += 1;
          },
        ),
        { numRuns: RUNS },
      );
      expect(seen.refused).toBeGreaterThan(0);
      expect(seen.loaded).toBeGreaterThan(0);
    },
    sizedTimeout(60_000, 600_000),
  );

  it(
    `prompt files: ${RUNS} inputs load or are refused naming the file`,
    () => {
      const seen = { loaded: 0, refused: 0 };
      fc.assert(
        fc.property(documents(validPrompt), (text) => {
          seen[loadsOrRefuses('task.prompt.md', () => parsePromptFile(text, 'task.prompt.md'))] += 1;
        }),
        { numRuns: RUNS },
      );
      expect(seen.refused + seen.loaded).toBe(RUNS);
    },
    sizedTimeout(60_000, 600_000),
  );

  it(
    `templates: ${RUNS} random templates render or are refused`,
    () => {
      const template = fc.oneof(
        mutated('Write about {{ topic }} using {{ steps[0].response }} and {{ last_response }}.'),
        fc.string({ maxLength: 80 }).map((text) => `{{${text}}}`),
      );
      fc.assert(
        fc.property(template, (text) => {
          loadsOrRefuses('spec.yaml', () =>
            renderTemplate(
              text,
              { variables: { topic: 'agents' }, steps: [{ response: 'earlier' }], lastResponse: 'last', error: null },
              { file: 'spec.yaml', key: 'steps[1].input' },
            ),
          );
        }),
        { numRuns: RUNS },
      );
    },
    sizedTimeout(60_000, 600_000),
  );
});
