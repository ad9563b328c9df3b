import { ActorError, type FieldProblem } from './actor-error.js';

/** The media type of every error response. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** The RFC 9457 body the runtime sends for every error. */
export interface ProblemDocument {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly code: string;
  readonly request_id: string;
  readonly errors?: readonly FieldProblem[];
}

/** The problem `type` URI for a code: a stable, documented identifier. */
export function problemType(code: string): string {
  return `https://actorkit.dev/problems/${code.replaceAll('_', '-')}`;
}

/**
 * The `ActorError` a thrown value answers as: an `ActorError` is itself; anything else is a 500
 * `internal_error` whose detail names the request id (its message and stack stay in the log).
 */
export function asActorError(error: unknown, requestId: string): ActorError {
  if (error instanceof ActorError) return error;
  return new ActorError('internal_error', {
    detail: `Something went wrong; quote request id ${requestId} when reporting it`,
    cause: error,
  });
}

/** The RFC 9457 body of an `ActorError`: the one builder of a problem document; never a stack trace. */
export function problemDocument(error: ActorError, requestId: string): ProblemDocument {
  return {
    type: problemType(error.code),
    title: error.title,
    status: error.status,
    ...(error.detail === undefined ? {} : { detail: error.detail }),
    code: error.code,
    request_id: requestId,
    ...(error.errors === undefined ? {} : { errors: error.errors }),
  };
}

/**
 * Turns a thrown value into its problem+json response (an `ActorError` its own problem,
 * anything else a 500 `internal_error`, see `asActorError`): every error answer of the runtime
 * is built here. Never includes a stack trace.
 * @param error what was thrown
 * @param requestId the request's id: the body's `request_id` and the `X-Request-Id` header
 */
export function problemResponse(error: unknown, requestId: string): Response {
  const actorError = asActorError(error, requestId);
  const headers = new Headers(actorError.headers);
  headers.set('Content-Type', PROBLEM_CONTENT_TYPE);
  headers.set('X-Request-Id', requestId);
  return new Response(JSON.stringify(problemDocument(actorError, requestId)), { status: actorError.status, headers });
}
