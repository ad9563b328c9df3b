import { Hono, type ExecutionContext } from 'hono';
import type { ActorBindings, ActorContext, ActorEnv } from '../context/actor-context.js';
import type { ActorRouter } from '../context/actor-router.js';
import { ActorError } from '../core/actor-error.js';
import { allowedMethods } from './allowed-methods.js';
import { mapActorErrors } from './map-actor-errors.js';

/** The 405 of a method a known path does not have, decided and answered at the fetch edge (see `unlistedMethodRefusal`). */
export interface UnlistedMethodRefusal {
  /** The 405 problem of `method` on `path`, with `Allow`; undefined when the path has the method or no route has the path. */
  refusal(method: string, path: string): ActorError | undefined;
  /** Answers a refused request: through the routers' before-auth middleware, which may reshape it (`/mcp` as JSON-RPC), as a problem. */
  answer(request: Request, refusal: ActorError, bindings: ActorBindings, executionCtx?: ExecutionContext): Response | Promise<Response>;
}

/**
 * The 405 `method_not_allowed` of a method a known path does not have — `TRACE`, `PROPFIND`,
 * `DELETE /stats` — before any key is checked: whether a path exists is no secret (the open
 * `/openapi.json` lists every path), and a caller learns more from "use GET" than from "send a
 * key". The methods are those `app`'s routes are mounted with; a path no route has, or one an
 * `all()` route answers (the workflow proxy), is not refused.
 *
 * It is decided at the fetch edge (`observeRequests`), not by a middleware of `app`: any
 * middleware makes Hono answer every request through a chain of promises, which cost `/health`
 * a fifth of its time. A refused request is answered by an app of its own that holds only the
 * routers' before-auth middleware (`ActorRouter.mountBeforeAuth`), so a router that reshapes
 * the refusals of its paths reshapes this one too, as it would a middleware's.
 * @param app the app whose routes say which methods each path has (read on the first request, once all are mounted)
 * @param ctx the actor context, for the routers and the problem mapping
 * @param routers the routers whose before-auth middleware sees the refusal
 */
export function unlistedMethodRefusal(app: Pick<Hono, 'routes'>, ctx: ActorContext, routers: readonly ActorRouter[]): UnlistedMethodRefusal {
  const allowed = allowedMethods(app);
  const pending = new WeakMap<Request, ActorError>();
  const refusals = new Hono<ActorEnv>();
  for (const router of routers) router.mountBeforeAuth?.(refusals, ctx);
  refusals.all('*', function refuseUnlistedMethod(c) {
    throw pending.get(c.req.raw) ?? new Error('a request reached the 405 answer without its refusal');
  });
  mapActorErrors(refusals, ctx.logger);
  return {
    refusal(method, path) {
      const methods = allowed(path);
      if (methods.length === 0 || methods.includes(method)) return undefined;
      const allow = methods.join(', ');
      return new ActorError('method_not_allowed', { detail: `${method} is not allowed here; use ${allow}`, headers: { Allow: allow } });
    },
    answer(request, refusal, bindings, executionCtx) {
      pending.set(request, refusal);
      return refusals.fetch(request, bindings, executionCtx);
    },
  };
}
