// Tool calls streamed in pieces, as both chat APIs send them, come out whole and in order.
import { describe, expect, it } from 'vitest';
import { ProviderError } from './errors/provider-error.js';
import { createToolCallDrafts } from './provider-sdk.js';

const call = { provider: 'openai', model: 'gpt-4o', described: 'arguments that are' };

describe('tool calls assembled from a stream', () => {
  it('joins interleaved pieces per call and returns the calls in stream order', () => {
    const drafts = createToolCallDrafts(call);
    drafts.add(1, { id: 'call_b', name: 'write_file', arguments: '{"path":' });
    drafts.add(0, { id: 'call_a', name: 'read_', arguments: '' });
    drafts.add(0, { name: 'file', arguments: '{"path":"notes.txt"}' });
    drafts.add(1, { arguments: '"out.md"}' });
    drafts.add(2, { name: 'list_files' });
    expect(drafts.has(2)).toBe(true);
    expect(drafts.has(3)).toBe(false);
    expect(drafts.toolCalls()).toEqual([
      { id: 'call_a', name: 'read_file', args: { path: 'notes.txt' } },
      { id: 'call_b', name: 'write_file', args: { path: 'out.md' } },
      { id: 'call_2', name: 'list_files', args: {} },
    ]);
  });

  it('refuses arguments that are not a JSON object with a retryable provider error', () => {
    const drafts = createToolCallDrafts(call);
    drafts.add(0, { id: 'call_a', name: 'read_file', arguments: '["notes.txt"]' });
    const error = (() => {
      try {
        drafts.toolCalls();
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: 'unavailable', isRetryable: true, provider: 'openai', model: 'gpt-4o' });
    expect((error as Error).message).toBe(
      'Model gpt-4o called tool read_file with arguments that are not a JSON object.',
    );
  });
});
