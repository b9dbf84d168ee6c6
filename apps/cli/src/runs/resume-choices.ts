// The answers to a resume's questions that can be given up front (`--on-conflict`,
// `--on-uncertain`): the command line offers them and the run's flags check them.
export const CONFLICT_CHOICES = ['keep', 'restore', 'cancel'] as const;
export const UNCERTAIN_CHOICES = ['rerun', 'skip', 'abort'] as const;
