import type { ActorError } from './actor-error.js';

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
  readonly errors?: readonly { pointer: string; detail: string }[];
}

/** The problem `type` URI for a code: a stable, documented identifier. */
export function problemType(code: string): string {
  return `https://actorkit.dev/problems/${code.replaceAll('_', '-')}`;
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

/** Builds the problem+json response of an `ActorError`; never includes a stack trace. */
export function problemResponse(error: ActorError, requestId: string): Response {
  const body = problemDocument(error, requestId);
  const headers = new Headers(error.headers);
  headers.set('Content-Type', PROBLEM_CONTENT_TYPE);
  headers.set('X-Request-Id', requestId);
  return new Response(JSON.stringify(body), { status: error.status, headers });
}
