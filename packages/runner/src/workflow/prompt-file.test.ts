import { describe, expect, it } from 'vitest';
import { parsePromptFile } from './prompt-file.js';

describe('parsePromptFile', () => {
  it('reads front matter and body', () => {
    const file = parsePromptFile(
      '---\nname: tidy\nmodel: gpt-4o\ntools: [read_file, write_file]\n---\n\n# Tidy\nDo it.\n',
      'tidy.prompt.md',
    );
    expect(file.frontMatter).toMatchObject({ name: 'tidy', model: 'gpt-4o', tools: ['read_file', 'write_file'] });
    expect(file.body).toBe('# Tidy\nDo it.');
  });

  it('accepts a file without front matter', () => {
    expect(parsePromptFile('Just do it.', null).frontMatter.tools).toEqual([]);
  });

  it('names the key of invalid front matter', () => {
    expect(() => parsePromptFile('---\ntools: read_file\n---\nbody', 'x.prompt.md')).toThrow(
      /x.prompt.md at front matter tools/,
    );
  });

  it('names the line of the file where its front matter is not valid YAML', () => {
    expect(() => parsePromptFile('---\nname: a\ntools: [read_file\n---\nbody', 'x.prompt.md')).toThrow(
      /x\.prompt\.md:\d+ at front matter: not valid YAML: .*[^:]$/m,
    );
  });

  it('refuses an empty body', () => {
    expect(() => parsePromptFile('---\nname: a\n---\n', 'x.prompt.md')).toThrow(/no instructions/);
  });
});
