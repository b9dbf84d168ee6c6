// Discussion mode (the source's "consensus"): agents speak in rounds, a judge decides
// after each round whether they agree and, when they do, writes the final solution.
// Every agent turn and every verdict is a durable step followed by a checkpoint.
import type { ChatMessage } from '@resume/core/spec';
import type { AgentSpec } from './agent-spec.js';
import { runAgentTurn, transcriptInput } from './agent-turn.js';
import {
  ensureStepMessage,
  intervalCheckpoint,
  type ModeContext,
  type ModeResult,
  reportProgress,
  setData,
} from './mode-context.js';

export interface DiscussionOptions {
  agents: AgentSpec[];
  judge: AgentSpec;
  /** At the last round the judge must conclude (default 4). */
  maxRounds: number;
  /** The judge concludes after the first round. */
  forceConsensus: boolean;
}

export interface Verdict {
  consensus: boolean;
  /** The judge's text without the verdict line. */
  text: string;
}

/**
 * The judge's protocol: a line `VERDICT: CONSENSUS` or `VERDICT: CONTINUE` (any case, anywhere in
 * the answer). Any model that plays a judge, the scripted provider's included, answers this way.
 */
export const JUDGE_VERDICT_PATTERN = /^\s*VERDICT:\s*(CONSENSUS|CONTINUE)\b/im;

export function parseVerdict(content: string): Verdict {
  const match = JUDGE_VERDICT_PATTERN.exec(content);
  const text = content.replace(JUDGE_VERDICT_PATTERN, '').trim();
  return { consensus: match?.[1]?.toUpperCase() === 'CONSENSUS', text };
}

function judgeInstruction(round: number, forced: boolean): ChatMessage {
  const content = forced
    ? `Round ${round} is over and the discussion must conclude now. Answer with a first line "VERDICT: CONSENSUS", then the final solution the panel arrived at.`
    : `Round ${round} is over. If the panel agrees, answer with a first line "VERDICT: CONSENSUS", then the final solution. Otherwise answer "VERDICT: CONTINUE", then what the panel still has to settle.`;
  return { role: 'user', content, speaker: 'moderator' };
}

export async function runDiscussion(context: ModeContext, options: DiscussionOptions): Promise<ModeResult> {
  const { session } = context;
  const maxRounds = Math.max(1, options.maxRounds);
  for (let round = 1; round <= maxRounds; round += 1) {
    reportProgress(context, 'rounds', round - 1, maxRounds);
    for (const agent of options.agents) {
      const key = `round-${round}/${agent.name}`;
      const input = transcriptInput(session.state.messages, agent.systemPrompt);
      const output = await runAgentTurn(context, {
        key,
        agent,
        ...input,
        round,
        metadata: { role: 'agent', round },
      });
      ensureStepMessage(context, key, { role: 'assistant', content: output.content, speaker: agent.name, round });
      await intervalCheckpoint(context, round, false, `round ${round}, agent ${agent.name}`);
      context.emit({ type: 'usage', totals: session.state.usage });
    }

    const forced = options.forceConsensus || round === maxRounds;
    const key = `round-${round}/${options.judge.name}`;
    const input = transcriptInput(session.state.messages, options.judge.systemPrompt);
    const output = await runAgentTurn(context, {
      key,
      agent: options.judge,
      system: input.system,
      messages: [...input.messages, judgeInstruction(round, forced)],
      round,
      metadata: { role: 'judge', round, forceConsensus: forced },
    });
    const verdict = parseVerdict(output.content);
    // A forced judge that still says CONTINUE has written its best answer: that is the conclusion.
    const concluded = verdict.consensus || forced;
    ensureStepMessage(context, key, {
      role: 'assistant',
      content: verdict.text,
      speaker: options.judge.name,
      round,
      tags: concluded ? ['judge', 'conclusion'] : ['judge', 'guidance'],
    });
    setData(context, 'discussion', { round, consensus: verdict.consensus, concluded });
    if (concluded) setData(context, 'conclusion', verdict.text);
    await intervalCheckpoint(
      context,
      round,
      concluded,
      concluded ? `round ${round}, consensus` : `round ${round}, judge`,
    );
    reportProgress(context, 'rounds', round, maxRounds);
    if (concluded) return { conclusion: verdict.text };
  }
  return { conclusion: null };
}
