// What the scripted models say when no script turn applies: plausible discussion turns that
// name the task and answer a named earlier speaker, in a voice chosen by the agent's name,
// and a judge that follows the verdict protocol. Every choice comes from the seeded generator.
import type { ChatMessage } from '@resume/core/spec';
import type { SeededRandom } from './seeded-random.js';

export type VoiceName = 'optimist' | 'skeptic' | 'pragmatist' | 'analyst';

interface Voice {
  openers: readonly string[];
  agree: readonly string[];
  disagree: readonly string[];
  /** How likely this voice agrees with the previous speaker. */
  agreeRate: number;
  points: readonly string[];
  closers: readonly string[];
  revisits: readonly string[];
}

// Placeholders: {topic} the task, {keyword}/{keyword2} words from it, {speaker} and {quote} an earlier turn.
const voices: Record<VoiceName, Voice> = {
  optimist: {
    openers: [
      'I see real promise in {topic}.',
      'There is a lot to like about {topic}.',
      '{topic} is worth doing, and sooner rather than later.',
    ],
    agree: [
      'I agree with {speaker} that "{quote}", and I would go further.',
      '{speaker} put it well: "{quote}" That is exactly the opening we need.',
    ],
    disagree: [
      '{speaker} worries that "{quote}", but I think that risk is manageable.',
      'I read it differently from {speaker}: "{quote}" sounds like an opportunity to me.',
    ],
    agreeRate: 0.75,
    points: [
      'Getting {keyword} right early gives us momentum for everything else.',
      'Users will notice the difference in {keyword} within the first week.',
      'If we lean into {keyword}, {keyword2} tends to follow naturally.',
      'A small pilot around {keyword} would show value quickly.',
    ],
    closers: [
      'My recommendation: start with {keyword} and expand once it proves itself.',
      "Let's commit to a first version focused on {keyword}.",
    ],
    revisits: ['Building on what I said earlier,', 'To extend my previous point,'],
  },
  skeptic: {
    openers: [
      'Before we commit to {topic}, we should ask what could go wrong.',
      'I have doubts about {topic} as framed.',
      '{topic} sounds attractive, but the hard parts are not yet on the table.',
    ],
    agree: [
      '{speaker} is right that "{quote}", though for a different reason than stated.',
      'I can accept what {speaker} said ("{quote}") if we add safeguards.',
    ],
    disagree: [
      'I\'m not convinced by {speaker}\'s claim that "{quote}".',
      '{speaker} says "{quote}", but the evidence for that is thin.',
    ],
    agreeRate: 0.3,
    points: [
      'The cost of {keyword} is easy to underestimate.',
      'Nobody has shown how {keyword} fails, and it will fail somewhere.',
      'We are assuming {keyword2} stays stable; that assumption needs testing.',
      'What happens to {keyword} under ten times the load?',
    ],
    closers: [
      'I would only proceed with a clear way to measure {keyword} and a way back out.',
      'Show me a failure plan for {keyword} and I will support it.',
    ],
    revisits: ['As I warned before,', 'My earlier concern still stands:'],
  },
  pragmatist: {
    openers: [
      "Let's make {topic} concrete.",
      'Here is how I would actually deliver {topic}.',
      'For {topic}, the question is what we can ship first.',
    ],
    agree: [
      '{speaker} is right that "{quote}", so let us turn it into a plan.',
      'Taking {speaker}\'s point ("{quote}") as given, the next step is clear.',
    ],
    disagree: [
      '{speaker} argues "{quote}", but that will not survive contact with a deadline.',
      'I would set aside {speaker}\'s "{quote}" for now; it does not change what we build first.',
    ],
    agreeRate: 0.55,
    points: [
      'Step one is a thin slice of {keyword} with one owner.',
      'We can reuse what exists for {keyword2} instead of building it again.',
      'A two-week milestone on {keyword} keeps everyone honest.',
      'Measure {keyword} from day one so the debate ends with data.',
    ],
    closers: [
      'Concretely: scope {keyword}, ship it, review in two weeks.',
      'I propose we agree on {keyword} as the first deliverable.',
    ],
    revisits: ['Following up on my plan,', 'Refining what I proposed,'],
  },
  analyst: {
    openers: [
      'Breaking {topic} into its parts helps.',
      'Three factors decide {topic}.',
      'Looking at {topic} systematically:',
    ],
    agree: ['The data supports {speaker}: "{quote}"', '{speaker} identified the key variable: "{quote}"'],
    disagree: [
      '{speaker}\'s "{quote}" mixes two separate questions.',
      'I would weigh {speaker}\'s "{quote}" lower than the other factors.',
    ],
    agreeRate: 0.5,
    points: [
      '{keyword} determines most of the outcome.',
      '{keyword2} interacts with {keyword} in ways we should model.',
      'The trade-off between {keyword} and {keyword2} is the real decision.',
      'Historical cases of {keyword} suggest a slow start and a steep curve.',
    ],
    closers: ['On balance, {keyword} should drive the decision.', 'Weighing these, I favour prioritising {keyword}.'],
    revisits: ['Updating my earlier analysis,', 'With the new input,'],
  },
};

const stopWords = new Set(
  'about above after again against because before being below between could doing during every further having other should their there these those through under until where which while would whether within without what when your yours with from into that this have will shall them they then than also just more most some such only very make many much need want like does evaluate large small ideas think using better great really please review consider'.split(
    ' ',
  ),
);

/** The voice of an agent: named after its role when the name says it, otherwise picked by a hash of the name. */
export function voiceFor(agent: string, nameHash: number): VoiceName {
  const name = agent.toLowerCase();
  if (/optim|advoc|champion|visionar/.test(name)) return 'optimist';
  if (/skept|critic|devil|doubt|review/.test(name)) return 'skeptic';
  if (/pragm|engineer|builder|practic/.test(name)) return 'pragmatist';
  if (/analy|research|scien|architect|design/.test(name)) return 'analyst';
  const order: VoiceName[] = ['optimist', 'skeptic', 'pragmatist', 'analyst'];
  return order[nameHash % order.length] ?? 'analyst';
}

/** The first sentence or line of a text, at most `maxWords` words. */
export function firstSentence(text: string, maxWords: number): string {
  const line =
    text
      .split('\n')
      .map((part) => part.trim())
      .find((part) => part.length > 0 && !/^VERDICT:/i.test(part)) ?? '';
  const sentence = (line.match(/^.*?[.!?](?=\s|$)/)?.[0] ?? line).replace(/["“”]/g, '').trim();
  const words = sentence.split(/\s+/).filter(Boolean);
  return words.length > maxWords ? `${words.slice(0, maxWords).join(' ')}…` : sentence;
}

/** The task's most telling words: the longest ones, which are usually its nouns. */
export function keywordsOf(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z][a-z0-9-]{4,}/g) ?? [];
  const unique = [...new Set(words.filter((word) => !stopWords.has(word)))];
  return unique.sort((left, right) => right.length - left.length || left.localeCompare(right)).slice(0, 5);
}

/** The sentences of a text (lines and sentence ends), without verdict lines. */
export function sentencesOf(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !/^\s*VERDICT:/i.test(line))
    .flatMap((line) => line.match(/[^.!?]+[.!?]*/g) ?? [])
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

/** A short quotable sentence of an earlier turn: a point it made, not its opening line. */
function quoteFrom(text: string, random: SeededRandom): string {
  const sentences = sentencesOf(text);
  const points = sentences.slice(1).filter((sentence) => !sentence.includes('"') && sentence.split(/\s+/).length <= 16);
  const chosen = points.length > 0 ? random.pick(points) : (sentences[0] ?? '');
  return firstSentence(chosen, 14).replace(/[.!?]+$/, '');
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
// `I` stays a capital; acronyms (`API`) keep theirs.
const lowerFirst = (text: string) =>
  /^(?!I\b)[A-Z](?![A-Z])/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;

/** Judges and moderators steer the discussion; they are not participants to quote or credit. */
export function isModerator(speaker: string): boolean {
  return /judge|moderator/i.test(speaker);
}

export interface DiscussionContext {
  agent: string;
  voice: VoiceName;
  task: string;
  messages: ChatMessage[];
  random: SeededRandom;
}

const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (match, name: string) => values[name] ?? match);

const imperative =
  /^(?:plan|design|build|write|create|evaluate|review|decide|propose|summari[sz]e|analy[sz]e|compare|implement|refactor|fix|improve|audit|migrate|choose|find|explain|draft|assess|investigate|outline|prepare|estimate)\b/i;

/**
 * The subject of the task, short enough to repeat inside a sentence:
 * `Evaluate my idea: X` → `X`; `Should we X?` → `the idea to X`; `How can we X?` → `the plan to X`;
 * `Plan X.` → `the task to plan X`; other questions are quoted.
 */
export function topicOf(task: string): string {
  const sentence = firstSentence(task, 40).replace(/[.!?…]+$/, '');
  const subject = sentence.includes(':') ? sentence.slice(sentence.indexOf(':') + 1).trim() : sentence;
  const shorten = (text: string) => {
    const words = text.split(/\s+/).filter(Boolean);
    return words.length > 10 ? `${words.slice(0, 10).join(' ')}…` : words.join(' ');
  };
  if (subject.length === 0) return 'this task';
  const should = subject.match(/^(?:should|shall|can|could|would|will|must)\s+(?:we|i|you|they|the team)\s+(.+)$/i);
  if (should?.[1]) return `the idea to ${shorten(should[1])}`;
  const how = subject.match(/^how\s+(?:do|can|should|could|would|might)\s+(?:we|i|you|they)\s+(.+)$/i);
  if (how?.[1]) return `the plan to ${shorten(how[1])}`;
  if (/^(?:is|are|does|do|did|what|why|which|when|where|who|how)\b/i.test(subject))
    return `the question "${shorten(subject)}?"`;
  if (imperative.test(subject)) return `the task to ${lowerFirst(shorten(subject))}`;
  return lowerFirst(shorten(subject));
}

/**
 * The task: the latest user message that is not a moderator's instruction. In a continued
 * session that is the follow-up, so the agents discuss the new question rather than the
 * parent's task they see in the history.
 */
export function taskOf(messages: ChatMessage[]): string {
  const asked = messages.findLast(
    (message) => message.role === 'user' && !(typeof message.speaker === 'string' && isModerator(message.speaker)),
  );
  return asked?.content ?? '';
}

/** A participant's turn. */
export function participantTurn(context: DiscussionContext): string {
  const { agent, random, messages } = context;
  const voice = voices[context.voice];
  const keywords = keywordsOf(context.task);
  const keyword = keywords.length > 0 ? random.pick(keywords) : 'the core idea';
  const others = keywords.filter((word) => word !== keyword);
  const keyword2 = others.length > 0 ? random.pick(others) : 'the rollout';
  const values: Record<string, string> = { topic: topicOf(context.task), keyword, keyword2 };

  const sentences: string[] = [];
  const ownTurns = messages.filter((message) => message.role === 'assistant' && message.speaker === agent).length;
  const previous = [...messages]
    .reverse()
    .find(
      (message) =>
        message.role === 'assistant' &&
        typeof message.speaker === 'string' &&
        message.speaker !== agent &&
        !isModerator(message.speaker) &&
        message.content.trim().length > 0 &&
        !/^\s*VERDICT:/im.test(message.content),
    );

  const opener = capitalize(fill(random.pick(voice.openers), values));
  sentences.push(ownTurns > 0 ? `${random.pick(voice.revisits)} ${lowerFirst(opener)}` : opener);
  if (previous?.speaker) {
    const quote = quoteFrom(previous.content, random);
    const stance = random.next() < voice.agreeRate ? voice.agree : voice.disagree;
    // Names stay as written, even at the start of a sentence.
    sentences.push(fill(random.pick(stance), { ...values, speaker: previous.speaker, quote }));
  }
  const points = [...voice.points];
  const pointCount = 2 + Math.floor(random.next() * 2);
  for (let index = 0; index < pointCount && points.length > 0; index++) {
    const [point] = points.splice(Math.floor(random.next() * points.length), 1);
    if (point) sentences.push(capitalize(fill(point, values)));
  }
  const body = sentences.join(' ');
  return `${body}\n\n${fill(random.pick(voice.closers), values)}`;
}

export interface JudgeContext {
  /** The judge's own name, never counted as a participant. */
  judge: string | null;
  task: string;
  messages: ChatMessage[];
  random: SeededRandom;
  consensus: boolean;
  round: number | null;
}

/** The judge's answer: a verdict line, then an assessment or the final solution. */
export function judgeTurn(context: JudgeContext): string {
  const { random, messages } = context;
  const keywords = keywordsOf(context.task);
  const keyword = keywords.length > 0 ? random.pick(keywords) : 'the core idea';
  const latestBySpeaker = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.speaker !== 'string') continue;
    if (message.speaker === context.judge || isModerator(message.speaker)) continue;
    if (/^\s*VERDICT:/im.test(message.content)) continue;
    // A participant's last line is its recommendation.
    const sentences = sentencesOf(message.content);
    latestBySpeaker.set(message.speaker, firstSentence(sentences.at(-1) ?? '', 20));
  }
  const positions = [...latestBySpeaker.entries()];
  const topic = topicOf(context.task);
  const roundText = context.round === null ? '' : ` after round ${context.round}`;

  if (!context.consensus) {
    const lines = [`VERDICT: CONTINUE`, '', `The discussion of ${topic} has not converged${roundText}.`];
    for (const [speaker, position] of positions) lines.push(`- ${speaker}: ${position}`);
    lines.push(
      '',
      random.pick([
        `Next round, resolve the disagreement about ${keyword} before adding new ideas.`,
        `The agents should converge on how to handle ${keyword}.`,
        `Open question for the next round: what is the first concrete step on ${keyword}?`,
      ]),
    );
    return lines.join('\n');
  }

  const lines = [`VERDICT: CONSENSUS`, '', `Final solution for ${topic}:`];
  let item = 1;
  for (const [speaker, position] of positions) lines.push(`${item++}. From ${speaker}: ${position}`);
  lines.push(
    `${item}. ${random.pick([
      `Start with ${keyword}, measure it, and expand once it proves itself.`,
      `Make ${keyword} the first deliverable, with a clear way back out if it fails.`,
      `Agree on ${keyword} as the priority and review progress after the first milestone.`,
    ])}`,
    '',
    positions.length > 0
      ? `The participants (${positions.map(([speaker]) => speaker).join(', ')}) agree on this direction.`
      : 'This is the agreed direction.',
  );
  return lines.join('\n');
}
