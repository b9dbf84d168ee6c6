// The environment a shell step's command runs in: Conclave's own, without the API keys of the
// model providers (a command that prints its environment would hand them to whatever reads its
// output) unless the step names them under `env:`, plus the binding variables of chain.ts.

/** The variables holding the model providers' API keys. */
export const PROVIDER_KEY_VARIABLES: readonly string[] = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY'];

/** `env` without the provider keys the step did not ask for by name. */
export function shellStepEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  requested: readonly string[] = [],
): Record<string, string | undefined> {
  const result = { ...env };
  for (const name of PROVIDER_KEY_VARIABLES) if (!requested.includes(name)) delete result[name];
  return result;
}
