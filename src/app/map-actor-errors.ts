import type { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ActorBindings, ActorEnv } from '../context/actor-context.js';
import { ActorError, clientClosedError } from '../core/actor-error.js';
import { problemCatalogue, type ProblemCode } from '../core/problem-codes.js';
import { asActorError, problemResponse } from '../core/problem-response.js';
import type { Logger } from '../log/logger.js';

/** The request id of `c`, or a new one for a request that did not come through the actor's `fetch`. */
function requestIdOf(c: { env: ActorBindings | undefined }): string {
  return c.env?.requestId ?? crypto.randomUUID();
}

/** The `ActorError` a failure of a request answers as, logged as its kind asks. */
function classify(error: Error, c: RequestOf, id: string, logger: Logger): ActorError {
  if (error instanceof ActorError) {
    if (error.status >= 500)
      logger.warn('request_failed', {
        request_id: id,
        code: error.code,
        status: error.status,
        cause: error.cause instanceof Error ? error.cause.message : undefined,
      });
    return error;
  }
  if (c.req.raw.signal.aborted || (error as { code?: unknown }).code === 'ECONNRESET') {
    // The client went away mid-request (e.g. while its body was read): nobody gets this answer.
    logger.debug('client_closed_request', { request_id: id, method: c.req.method, path: c.req.path });
    return clientClosedError(error);
  }
  if (error instanceof HTTPException) {
    if (error.status === 413) return new ActorError('payload_too_large', { detail: error.message || undefined });
    // The framework's own refusal keeps the framework's status.
    const { title } = problemCatalogue.http_error;
    return new ActorError(error.status, 'http_error' satisfies ProblemCode, title, {
      detail: error.message || undefined,
    });
  }
  logger.error('unhandled_error', {
    request_id: id,
    method: c.req.method,
    path: c.req.path,
    error: error.message,
    stack: error.stack,
  });
  return asActorError(error, id);
}

interface RequestOf {
  readonly env: ActorBindings | undefined;
  readonly req: { method: string; path: string; raw: Request };
}

/**
 * Turns every failure into a problem+json answer: an unknown route is a 404 (a known path asked
 * with another method got its 405 at the fetch edge, from `edgeRefusals`), an `ActorError` its
 * own problem, a client that went away a 499, anything else a 500 that names the request id (and
 * is logged with its stack).
 */
export function mapActorErrors(app: Hono<ActorEnv>, logger: Logger): void {
  app.notFound(function notFound(c) {
    return problemResponse(
      new ActorError('not_found', { detail: `No route for ${c.req.method} ${new URL(c.req.url).pathname}` }),
      requestIdOf(c),
    );
  });
  app.onError(function onActorError(error, c) {
    const id = requestIdOf(c);
    return problemResponse(classify(error, c, id, logger), id);
  });
}
