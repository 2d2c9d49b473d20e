/**
 * A value in the environment (or a serve flag) the Hub refuses to start with: a port or listen
 * address it would otherwise have to guess, or a security list it cannot read. `cihub serve` reports it as a usage error (exit 2),
 * the same as a wrong flag, since the fix is on the command line that started it.
 */
export class EnvError extends Error {
  constructor(
    /** The variable at fault, e.g. API_PORT. */
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = 'EnvError';
  }
}
