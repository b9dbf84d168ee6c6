// The tools `conclave mcp` offers: each one is a command line of the CLI (so it makes the same
// checks and says the same things), built from the tool's arguments. Read-only tools always;
// the ones that write or run only with --allow-runs.
import { z } from 'zod';

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** Whether the tool reaches outside Conclave's store (model providers, the workspace). */
  openWorldHint: boolean;
}

export interface ConclaveTool<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  description: string;
  input: Shape;
  annotations: ToolAnnotations;
  /** Needs `conclave mcp --allow-runs`. */
  writes: boolean;
  /**
   * The command line that does the work: the command and its options (values joined with `=`),
   * then the arguments, which go after `--` so that no text a client sends is read as an option.
   */
  command(input: z.infer<z.ZodObject<Shape>>): { options: string[]; args: string[] };
}

const session = z
  .string()
  .min(1)
  .regex(/^[^-]/, 'a session is named by its id, a prefix, its name or its index, never by text starting with "-"')
  .describe('the session: its id, a unique id prefix (6+ characters), its name or its index in list_sessions');

const readOnly = (title: string): ToolAnnotations => ({
  title,
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

const define = <Shape extends z.ZodRawShape>(tool: ConclaveTool<Shape>): ConclaveTool =>
  tool as unknown as ConclaveTool;

const listInput = {
  status: z
    .enum(['running', 'interrupted', 'waiting', 'completed', 'failed'])
    .optional()
    .describe('only sessions with this status (waiting: a question for a person is open)'),
  mode: z
    .string()
    .optional()
    .describe('only sessions of this mode (discussion, iterative, orchestrated, chain, prompt…)'),
  since: z.string().optional().describe('only sessions updated since: an age (7d, 12h) or a date (2026-06-01)'),
  tag: z.array(z.string()).optional().describe('only sessions with all of these tags'),
  pinned: z.boolean().optional().describe('only pinned sessions'),
  archived: z.boolean().optional().describe('only archived sessions (they are left out otherwise)'),
  workspace: z.boolean().optional().describe('only sessions of the directory the server was started in'),
  limit: z.number().int().positive().max(1000).optional().describe('at most this many, newest first'),
};

const showInput = {
  session,
  format: z
    .enum(['text', 'json'])
    .optional()
    .describe('text (default): status, usage, checkpoints and the whole transcript; json: the same as data'),
};

const answerInput = {
  session,
  answer: z
    .string()
    .optional()
    .describe('the answer to the question the session waits for; without it, the question is returned'),
  by: z.string().optional().describe('who answers, journaled with the answer (default: the server user@host)'),
};

const continueInput = {
  session,
  follow_up: z.string().min(1).describe('the follow-up question or task'),
};

export const conclaveTools: ConclaveTool[] = [
  define({
    name: 'list_sessions',
    description:
      'List Conclave sessions (durable AI agent sessions), newest first, as JSON: id, title, mode, status, ' +
      'created and updated times, parent, usage and cost. Filters as `conclave sessions list`.',
    input: listInput,
    annotations: readOnly('List sessions'),
    writes: false,
    command: (input) => ({
      options: [
        'sessions',
        'list',
        '--json',
        ...(input.status ? [`--status=${input.status}`] : []),
        ...(input.mode ? [`--mode=${input.mode}`] : []),
        ...(input.since ? [`--since=${input.since}`] : []),
        ...(input.tag?.length ? [`--tag=${input.tag.join(',')}`] : []),
        ...(input.pinned ? ['--pinned'] : []),
        ...(input.archived ? ['--archived'] : []),
        ...(input.workspace ? ['--workspace'] : []),
        ...(input.limit ? [`--limit=${input.limit}`] : []),
      ],
      args: [],
    }),
  }),
  define({
    name: 'show_session',
    description:
      "A session's status, lineage, usage and cost, checkpoints and its whole transcript (who said what, " +
      'round by round, with tool calls), as `conclave sessions show --transcript`.',
    input: showInput,
    annotations: readOnly('Show a session'),
    writes: false,
    command: (input) => ({
      options: ['sessions', 'show', input.format === 'json' ? '--json' : '--transcript'],
      args: [input.session],
    }),
  }),
  define({
    name: 'resume_plan',
    description:
      'What resuming an interrupted session would do, without running anything: the steps done (skipped), ' +
      'the ones that started and never finished, what runs next, what changed since (files, spec, models), ' +
      'the cost so far and the estimate, as `conclave --resume <id> --dry-run`.',
    input: { session },
    annotations: readOnly('Plan a resume'),
    writes: false,
    command: (input) => ({ options: [`--resume=${input.session}`, '--dry-run'], args: [] }),
  }),
  define({
    name: 'answer',
    description:
      'Answer the question a waiting session asks a person (status waiting), as `conclave answer`: the ' +
      'answer is journaled with who gave it, and the session can then be resumed. Without an answer, returns the question.',
    input: answerInput,
    annotations: {
      title: 'Answer a waiting session',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    writes: true,
    command: (input) => ({
      options: ['answer', ...(input.by ? [`--by=${input.by}`] : [])],
      args: [input.session, ...(input.answer === undefined ? [] : [input.answer])],
    }),
  }),
  define({
    name: 'continue_session',
    description:
      'Ask a completed session a follow-up: a new child session that sees the history runs to its end ' +
      '(model calls, and tools in the session’s workspace for orchestrated sessions), as ' +
      '`conclave --resume <id> "<follow-up>"`. Returns the new session id, its status and conclusion.',
    input: continueInput,
    annotations: {
      title: 'Continue a session with a follow-up',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
    writes: true,
    command: (input) => ({
      options: [`--resume=${input.session}`, '--yes', '--json', '--quiet'],
      args: [input.follow_up],
    }),
  }),
];
