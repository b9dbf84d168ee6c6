// `validate:` and `goal_seek:` steps (docs/workflow-spec.md, "Validate steps" and "Goal-seek
// steps"): their schemas, the fixes their errors suggest and the template checks that need the
// whole spec. Each runs a shell command or an agent turn (an "action") in a loop until a number
// it reads from the output reaches a threshold.
import { z } from 'zod';

export type ScoredStepKind = 'validate' | 'goal_seek';

/** Which scored step a loosely read step is (null: neither). */
export function scoredStepKindOf(value: Record<string, unknown>): ScoredStepKind | null {
  if ('validate' in value) return 'validate';
  if ('goal_seek' in value) return 'goal_seek';
  return null;
}

/** What a check, a scorer or a goal_seek attempt runs: a shell command or an agent's turn. */
export interface ScoredAction {
  shell?: string | undefined;
  env?: string[] | undefined;
  agent?: string | undefined;
  input?: string | undefined;
}

/** An action as the agent or shell step it runs as. */
export type ActionStep = { shell: string; env?: string[] } | { agent: string; input: string };

/** The action as the leaf step it runs as. */
export function actionStep(action: ScoredAction): ActionStep {
  if (action.shell !== undefined) return { shell: action.shell, ...(action.env ? { env: action.env } : {}) };
  return { agent: action.agent ?? '', input: action.input ?? '' };
}

/** `shell:` or `agent:` with `input:`, exactly one of them; `what` names it in the message. */
function checkAction(what: string) {
  return (action: ScoredAction, context: z.RefinementCtx) => {
    const problem = actionProblem(what, action);
    if (problem !== null) context.addIssue({ code: 'custom', message: problem });
  };
}

function actionProblem(what: string, action: ScoredAction): string | null {
  const shell = action.shell !== undefined;
  const agent = action.agent !== undefined;
  if (shell && agent) return `${what} is either \`shell:\` or \`agent:\` with \`input:\`, not both`;
  if (!shell && !agent) return `${what} needs \`shell:\` (a command) or \`agent:\` with \`input:\``;
  if (agent && action.input === undefined) return `${what} with \`agent:\` needs \`input:\` (what the agent is asked)`;
  if (shell && action.input !== undefined) return `\`input:\` goes with \`agent:\`; ${what} with \`shell:\` has none`;
  if (agent && action.env !== undefined) return `\`env:\` goes with \`shell:\`; an agent sees no environment`;
  return null;
}

interface SchemaPieces<Leaf extends z.ZodType> {
  stepIdSchema: z.ZodType<string>;
  agentNameSchema: z.ZodType<string>;
  envSchema: z.ZodOptional<z.ZodArray<z.ZodString>>;
  leafStepSchema: Leaf;
}

/** The two steps' schemas, built from the spec's own pieces (ids, agent names, leaf steps). */
export function scoredStepSchemas<Leaf extends z.ZodType>(pieces: SchemaPieces<Leaf>) {
  const { stepIdSchema, agentNameSchema, envSchema, leafStepSchema } = pieces;
  const actionShape = {
    shell: z.string().min(1, 'a shell command is not empty').optional(),
    env: envSchema,
    agent: agentNameSchema.optional(),
    input: z.string().min(1).optional(),
  };
  const maxAttemptsSchema = z
    .number()
    .int('max_attempts is a whole number')
    .min(1, 'max_attempts counts the first try, so it is at least 1')
    .max(100, 'max_attempts is at most 100')
    .default(3);

  const validateStepSchema = z.strictObject({
    id: stepIdSchema.optional(),
    name: z.string().min(1).optional(),
    validate: z
      .strictObject({
        ...actionShape,
        threshold: z
          .number()
          .min(0, 'threshold is a completion from 0 to 1')
          .max(1, 'threshold is a completion from 0 to 1 (0.9 is 90%)')
          .default(1),
        max_attempts: maxAttemptsSchema,
        on_incomplete: leafStepSchema.optional(),
      })
      .superRefine(checkAction('a check')),
  });

  // A scorer written as text is a shell command.
  const scorerSchema = z
    .union([z.string().min(1, 'a shell command is not empty'), z.strictObject(actionShape)])
    .transform((value) => (typeof value === 'string' ? { shell: value } : value))
    .superRefine(checkAction("goal_seek's validate"));

  const goalSeekStepSchema = z.strictObject({
    id: stepIdSchema.optional(),
    name: z.string().min(1).optional(),
    goal_seek: z
      .strictObject({
        ...actionShape,
        validate: scorerSchema,
        threshold: z.number({
          error: (issue) =>
            issue.input === undefined
              ? 'a goal_seek step needs a threshold (the score to reach)'
              : 'threshold is a number',
        }),
        max_attempts: maxAttemptsSchema,
      })
      .superRefine(checkAction('a goal_seek step')),
  });
  return { validateStepSchema, goalSeekStepSchema };
}

export const scoredStepFixes: Array<[RegExp, string]> = [
  [
    /^steps\[\d+\]\.validate/,
    'Write it as validate: { shell: "<a check printing { \\"completion\\": 0.8, \\"missing\\": [...] }>", threshold: 0.9, max_attempts: 3, on_incomplete: { agent: fixer, input: "Missing: {{ validation.missing }}" } } (or agent: with input: instead of shell:).',
  ],
  [
    /^steps\[\d+\]\.goal_seek/,
    'Write it as goal_seek: { agent: writer, input: "... {{ goal.previous_score }} ...", validate: "<a command printing a score>", threshold: 80, max_attempts: 5 } (or shell: instead of agent:).',
  ],
];

type Allowed = { validation?: boolean; goal?: 'step' | 'validate' };

interface ScoredStepChecks<Leaf> {
  check: (text: string, key: string, allowed: Allowed & { error: boolean; lastResponse: boolean }) => void;
  checkLeaf: (step: Leaf, key: string, allowed: Allowed) => void;
  checkAgent: (name: string, key: string) => void;
}

/** The template and agent checks of a validate or goal_seek step standing at `key`. */
export function checkScoredStep<Leaf>(
  step:
    | { validate: ScoredAction & { on_incomplete?: Leaf | undefined } }
    | { goal_seek: ScoredAction & { validate: ScoredAction } },
  key: string,
  checks: ScoredStepChecks<Leaf>,
): void {
  const checkActionTemplates = (action: ScoredAction, at: string, allowed: Allowed) => {
    if (action.shell !== undefined) {
      checks.check(action.shell, `${at}.shell`, { ...allowed, error: false, lastResponse: true });
      return;
    }
    if (action.agent !== undefined) checks.checkAgent(action.agent, `${at}.agent`);
    if (action.input !== undefined)
      checks.check(action.input, `${at}.input`, { ...allowed, error: false, lastResponse: true });
  };
  if ('validate' in step) {
    checkActionTemplates(step.validate, `${key}.validate`, {});
    if (step.validate.on_incomplete) {
      checks.checkLeaf(step.validate.on_incomplete, `${key}.validate.on_incomplete`, { validation: true });
    }
    return;
  }
  checkActionTemplates(step.goal_seek, `${key}.goal_seek`, { goal: 'step' });
  checkActionTemplates(step.goal_seek.validate, `${key}.goal_seek.validate`, { goal: 'validate' });
}
