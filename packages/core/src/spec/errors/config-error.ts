import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/** A config, spec or prompt file is invalid: names the file, the key (path in the document) and the fix. */
export class ConfigError extends ConclaveError {
  static override readonly code = 'config-invalid';
  readonly file: string | null;
  readonly key: string | null;
  constructor(
    details: { file: string | null; key: string | null; problem: string; fix?: string },
    options: ConclaveErrorOptions = {},
  ) {
    const where = [details.file, details.key].filter(Boolean).join(' at ');
    super(ConfigError.code, where ? `${where}: ${details.problem}` : details.problem, {
      ...(details.fix ? { hint: details.fix } : {}),
      ...options,
    });
    this.name = 'ConfigError';
    this.file = details.file;
    this.key = details.key;
  }
}
