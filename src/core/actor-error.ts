import { problemCatalogue, type ProblemCode } from './problem-codes.js';

/** One field-level problem inside a 422 response. */
export interface FieldProblem {
  /** JSON pointer (RFC 6901) to the offending value in the request body, e.g. `/session_id`. */
  readonly pointer: string;
  readonly detail: string;
}

/** Options of an `ActorError`. */
export interface ActorErrorOptions {
  /** Human-readable explanation specific to this occurrence. */
  readonly detail?: string;
  readonly errors?: readonly FieldProblem[];
  /** Extra response headers, e.g. `Allow` or `WWW-Authenticate`. */
  readonly headers?: Record<string, string>;
  readonly cause?: unknown;
}

/**
 * The one error class of the runtime: an HTTP status, a stable snake_case `code` and a title.
 * Thrown anywhere below a route, it becomes an RFC 9457 problem+json response. Built from a
 * code of `problemCatalogue`, it takes that code's status and title; an actor's own code comes
 * with its own status and title.
 * @example
 * throw new ActorError('draining', { detail: 'Send the request to another replica' });
 * throw new ActorError(409, 'quota_exhausted', 'Quota exhausted', { detail: 'Try again tomorrow' });
 */
export class ActorError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly errors: readonly FieldProblem[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ProblemCode, options?: ActorErrorOptions);
  constructor(status: number, code: string, title: string, options?: ActorErrorOptions);
  constructor(
    statusOrCode: number | ProblemCode,
    codeOrOptions?: string | ActorErrorOptions,
    ownTitle?: string,
    ownOptions?: ActorErrorOptions,
  ) {
    const [status, code, title, options] =
      typeof statusOrCode === 'number'
        ? [statusOrCode, codeOrOptions as string, ownTitle as string, ownOptions ?? {}]
        : [
            problemCatalogue[statusOrCode].status,
            statusOrCode,
            problemCatalogue[statusOrCode].title,
            (codeOrOptions as ActorErrorOptions | undefined) ?? {},
          ];
    super(options.detail ?? title, { cause: options.cause });
    this.name = 'ActorError';
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = options.detail;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

/** The error of a request whose client went away before the answer (nginx's 499). */
export function clientClosedError(cause?: unknown): ActorError {
  return new ActorError('client_closed_request', { detail: 'The client went away before the answer was ready', cause });
}
