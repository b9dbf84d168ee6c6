// The command line's options as their schemas check them: what a user gives comes back as the
// command reads it, and a bad value is a usage error that names the flag and what it takes.
import { UsageError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { workflowOptionsSchema } from '../commands/run-workflow.js';
import { parseGlobalOptions } from '../context/global-options.js';
import { parseRunFlags } from './run-flags.js';

const message = (work: () => unknown) => {
  try {
    work();
    return 'no error';
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
};

describe('the command line options', () => {
  it('come back as the commands read them: numbers, lists, modes by their names, defaults filled in', () => {
    expect(parseRunFlags({ resume: '01jf3k', yes: true, quiet: true })).toEqual({
      resume: '01jf3k',
      yes: true,
      modeOptions: {},
    });
    expect(parseGlobalOptions({ quiet: true, provider: 'scripted' })).toEqual({
      quiet: true,
      provider: 'scripted',
      json: false,
      debug: false,
    });
    expect(parseRunFlags({ maxRounds: '4', models: 'a, b', mode: 'consensus', onConflict: 'keep' })).toEqual({
      models: ['a', 'b'],
      mode: 'discussion',
      onConflict: 'keep',
      modeOptions: { maxRounds: 4 },
    });
    expect(workflowOptionsSchema.parse({ title: 't' })).toEqual({ var: [], saveSession: true, title: 't' });
  });

  it('report a bad value as they always did: the flag and what it takes', () => {
    expect(message(() => parseRunFlags({ maxRounds: 'abc' }))).toBe('UsageError: --max-rounds takes a whole number');
    expect(message(() => parseRunFlags({ startChunk: '1.5' }))).toBe('UsageError: --start-chunk takes a whole number');
    expect(message(() => parseRunFlags({ atRound: '0' }))).toBe('UsageError: --at-round must be at least 1');
    expect(message(() => parseRunFlags({ checkpointInterval: '0' }))).toBe(
      'UsageError: --checkpoint-interval must be at least 1',
    );
    expect(message(() => parseRunFlags({ mode: 'nosuch' }))).toBe('UsageError: Unknown mode "nosuch".');
    expect(message(() => parseGlobalOptions({ provider: 'nosuch' }))).toMatch(
      /^UsageError: Invalid value for --provider: not a provider Conclave knows \(use .*scripted.*\)\.$/,
    );
    expect(message(() => parseGlobalOptions({ home: '' }))).toMatch(/^UsageError: Invalid value for --home: /);
    expect(() => parseRunFlags({ onUncertain: 'later' })).toThrow(UsageError);
  });
});
