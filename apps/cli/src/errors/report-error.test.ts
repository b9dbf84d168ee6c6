import { createEngine } from '@resume/core';
import { ProviderError, StepFailedError } from '@resume/core/spec';
import { createMemoryStore } from '@resume/core/testing';
import { createScriptedProvider } from '@resume/providers-scripted';
import { createRunner } from '@resume/runner';
import { describe, expect, it } from 'vitest';
import { createTerminal } from '../output/terminal.js';
import { reportError } from './report-error.js';

function capture() {
  let stderr = '';
  const terminal = createTerminal(
    { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) } },
    { color: false, quiet: false, env: {} },
  );
  return { terminal, stderr: () => stderr };
}

describe('reportError', () => {
  it('shows what to do about the error a step failed with after its retries', () => {
    const missing = new ProviderError({
      reason: 'model-not-found',
      provider: 'openai',
      model: 'gpt-4o',
      status: 404,
      message: 'The model gpt-4o does not exist.',
    });
    const failed = new StepFailedError(
      {
        sessionId: '0001abc',
        key: 'call:critic:1',
        occurrence: 1,
        attempts: [
          {
            attempt: 1,
            error: { name: 'ProviderError', message: missing.message, code: 'provider-error', retryable: false },
          },
        ],
      },
      { cause: missing },
    );
    const { terminal, stderr } = capture();
    const exitCode = reportError(failed, terminal, { debug: false });
    expect(exitCode).toBe(69);
    expect(stderr()).toContain(
      'Step "call:critic:1" of session 0001abc failed after 1 attempt: The model gpt-4o does not exist.',
    );
    expect(stderr()).toContain("Continue with 'gpt-4o' anyway");
    expect(stderr()).toContain('--models <a,b>');
  });

  it("words a runner error's next step in the CLI's own commands", async () => {
    const provider = createScriptedProvider();
    const runner = createRunner({
      engine: createEngine({ store: createMemoryStore() }),
      models: (agent) => provider.chatModel(agent.model ?? 'scripted'),
      workspaceDir: '/workspace',
    });
    const { sessionId } = await runner.start({ mode: 'discussion', task: 'Pick a database' });
    const error = await runner.resume(sessionId).catch((caught: unknown) => caught);
    const { terminal, stderr } = capture();
    expect(reportError(error, terminal, { debug: false })).toBe(64);
    expect(stderr()).toContain(`Session ${sessionId} is already completed; there is nothing to resume.`);
    expect(stderr()).toContain(`Ask a follow-up instead: conclave --resume ${sessionId} "your question"`);
  });
  it('says a LangGraph thread is continued by its graph, and does not offer --force, which cannot resume it', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const provider = createScriptedProvider();
    const runner = createRunner({
      engine,
      models: (agent) => provider.chatModel(agent.model ?? 'scripted'),
      workspaceDir: '/workspace',
    });
    const thread = await engine.createSession({
      title: 'LangGraph thread support-42',
      mode: 'langgraph',
      options: { threadId: 'support-42' },
    });
    const sessionId = thread.id;
    await thread.close();
    const error = await runner.resume(sessionId).catch((caught: unknown) => caught);
    const { terminal, stderr } = capture();
    expect(reportError(error, terminal, { debug: false })).toBe(65);
    expect(stderr()).toContain('it was not started by the runner (mode langgraph)');
    expect(stderr()).toContain('Continue it from your app: run the graph again with thread_id "support-42"');
    expect(stderr()).toContain(`See what it holds: conclave sessions show ${sessionId}`);
    expect(stderr()).not.toContain('Pass --force to resume anyway');
  });
});
