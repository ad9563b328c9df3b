/** How a CLI run ended: done, the check or action failed, or the CLI refused to act. */
export type CliStatus = 'ok' | 'failed' | 'refused';

/**
 * The one error the CLI library throws on purpose: `refused` for bad usage or a request it will
 * not carry out, `failed` when the work itself went wrong. `code` is a stable snake_case id.
 */
export class CliError extends Error {
  readonly status: Exclude<CliStatus, 'ok'>;
  readonly code: string;

  constructor(status: Exclude<CliStatus, 'ok'>, code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.status = status;
    this.code = code;
  }
}

/** The result object of a library call that did not succeed. */
export interface CliFailure {
  readonly status: Exclude<CliStatus, 'ok'>;
  readonly code: string;
  readonly message: string;
}

/**
 * Turns a thrown value into a result object; a value that is not a {@link CliError} is a failure
 * with code `internal_error`, so library functions never throw at their callers.
 */
export function toCliFailure(error: unknown): CliFailure {
  if (error instanceof CliError) return { status: error.status, code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { status: 'failed', code: 'internal_error', message };
}
