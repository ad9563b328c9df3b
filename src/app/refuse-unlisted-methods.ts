import type { Hono, MiddlewareHandler } from 'hono';
import type { ActorEnv } from '../context/actor-context.js';
import { ActorError } from '../core/actor-error.js';
import { allowedMethods } from './allowed-methods.js';

/**
 * Answers a method a known path does not have — `TRACE`, `PROPFIND`, `DELETE /stats` — with a
 * 405 problem and `Allow`, before any key is checked: whether a path exists is no secret (the
 * open `/openapi.json` lists every path), and a caller learns more from "use GET" than from
 * "send a key". The methods are those the app's routes are mounted with, which `/openapi.json`
 * documents; a path no route has, or one an `all()` route answers (the workflow proxy), goes on.
 * Mount it before the API key; it reads the routes on the first request, once all are mounted.
 * @param app the app whose routes say which methods each path has
 */
export function refuseUnlistedMethods(app: Hono<ActorEnv>): MiddlewareHandler<ActorEnv> {
  const allowed = allowedMethods(app);
  return async function refuseUnlistedMethod(c, next) {
    const methods = allowed(c.req.path);
    if (methods.length > 0 && !methods.includes(c.req.method)) {
      const allow = methods.join(', ');
      throw new ActorError('method_not_allowed', { detail: `${c.req.method} is not allowed here; use ${allow}`, headers: { Allow: allow } });
    }
    return next();
  };
}
