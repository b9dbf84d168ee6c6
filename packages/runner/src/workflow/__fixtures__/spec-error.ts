// The ConfigError a workflow spec's text is refused with (for the spec tests).
import { ConfigError } from '@resume/core/spec';
import { parseWorkflowSpec } from '../workflow-spec.js';

export function configError(text: string): ConfigError {
  try {
    parseWorkflowSpec(text, 'flow.yaml');
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
