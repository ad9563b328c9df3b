import type { MiddlewareHandler } from 'hono';
import type { ActorEnv } from '../../context/actor-context.js';
import { ActorError } from '../../core/actor-error.js';
import { hasForeignOrigin } from '../../core/request-origin.js';

/** Options of `refuseForeignOrigin`. */
export interface OriginCheckOptions {
  /** Whether a trusted relay's `X-Forwarded-Host` names the host the browser addressed (on the platform). */
  readonly trustForwardedHost: boolean;
}

/** The 403 problem of a request from a browser page of another origin (see `hasForeignOrigin`). */
export function originNotAllowedError(): ActorError {
  return new ActorError('origin_not_allowed', {
    detail:
      "The Origin header names a web page that is not this actor's own; call the actor from its own pages, or without an Origin (curl, SDKs, servers)",
  });
}

/**
 * Refuses every request whose browser `Origin` is not the actor's own with 403
 * `origin_not_allowed`, whatever its method: for `/mcp`, whose specification asks a server to
 * check `Origin` on every connection. (The app's edge refuses a foreign `Origin` on every
 * state-changing method of every route.)
 * @param options whether to trust `X-Forwarded-Host`
 * @example
 * app.use('/mcp', refuseForeignOrigin({ trustForwardedHost: ctx.config.platformMode }));
 */
export function refuseForeignOrigin(options: OriginCheckOptions): MiddlewareHandler<ActorEnv> {
  const { trustForwardedHost } = options;
  return async function refuseForeignOriginMiddleware(c, next) {
    if (hasForeignOrigin(c.req.raw, c.env?.runtime, trustForwardedHost)) throw originNotAllowedError();
    await next();
  };
}
