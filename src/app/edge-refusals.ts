import { Hono, type ExecutionContext } from 'hono';
import type { ActorBindings, ActorContext, ActorEnv } from '../context/actor-context.js';
import type { ActorRouter } from '../context/actor-router.js';
import { ActorError } from '../core/actor-error.js';
import type { RuntimeBindings } from '../core/runtime-bindings.js';
import type { ApiKeyRefusal } from './api-key-refusal.js';
import { mapActorErrors } from './map-actor-errors.js';
import { TrieRouter } from 'hono/router/trie-router';

/**
 * The methods an app's routes answer on a path, for `405 Method Not Allowed` and its `Allow`
 * header: GET brings HEAD; middleware and `all()` routes (which answer every method) say
 * nothing. Built on first use, from every route registered by then; a path without parameters
 * is one map lookup.
 * @param app the app whose routes to read
 * @returns a lookup from a request path to its methods, empty when no route has that path
 */
function allowedMethods(app: Pick<Hono, 'routes'>): (path: string) => readonly string[] {
  let lookup: ((path: string) => readonly string[]) | undefined;
  const build = () => {
    const methodsByPath = new Map<string, Set<string>>();
    for (const route of app.routes) {
      if (route.method === 'ALL' || route.method === 'HEAD') continue;
      const methods = methodsByPath.get(route.path) ?? new Set<string>();
      methods.add(route.method);
      if (route.method === 'GET') methods.add('HEAD');
      methodsByPath.set(route.path, methods);
    }
    const router = new TrieRouter<readonly string[]>();
    for (const [routePath, methods] of methodsByPath) router.add('ALL', routePath, [...methods]);
    const match = (path: string): readonly string[] => {
      const found = new Set<string>();
      for (const [methods] of router.match('ALL', path)[0]) for (const method of methods) found.add(method);
      return [...found];
    };
    const exact = new Map(
      [...methodsByPath.keys()]
        .filter((routePath) => !/[:*]/.test(routePath))
        .map((routePath) => [routePath, match(routePath)]),
    );
    return (path: string): readonly string[] => exact.get(path) ?? match(path);
  };
  return (path) => (lookup ??= build())(path);
}

/** The refusals decided and answered at the fetch edge, before any route (see `edgeRefusals`). */
export interface EdgeRefusals {
  /** The 405 problem of `method` on `path`, with `Allow`; undefined when the path has the method or no route has the path. */
  unlistedMethod(method: string, path: string): ActorError | undefined;
  /** The 401 problem of a request without a valid key (`API_KEY_ENABLED`); undefined when it has one, the path is public or no key is configured. */
  missingKey(request: Request, runtime: RuntimeBindings | undefined, path: string): ActorError | undefined;
  /** Answers a refused request: through the routers' before-auth middleware, which may reshape it (`/mcp` as JSON-RPC), as a problem. */
  answer(
    request: Request,
    refusal: ActorError,
    bindings: ActorBindings,
    executionCtx?: ExecutionContext,
  ): Response | Promise<Response>;
}

/**
 * What is refused before any route, in this order: the 405 `method_not_allowed` of a method a
 * known path does not have — `TRACE`, `PROPFIND`, `DELETE /stats` — then the 401 of a missing or
 * wrong API key. The 405 comes first: whether a path exists is no secret (the open
 * `/openapi.json` lists every path), and a caller learns more from "use GET" than from "send a
 * key". The methods are those `app`'s routes are mounted with; a path no route has, or one an
 * `all()` route answers (the workflow proxy), is not refused.
 *
 * Both are decided at the fetch edge (`observeRequests`), not by middleware of `app`: any
 * middleware for every path makes Hono answer every request through a chain of promises, which
 * cost `/health` a fifth of its time. A refused request is answered by an app of its own that
 * holds only the routers' before-auth middleware (`ActorRouter.mountBeforeAuth`), so a router
 * that reshapes the refusals of its paths reshapes these too, as it would a middleware's.
 * @param app the app whose routes say which methods each path has (read on the first request, once all are mounted)
 * @param ctx the actor context, for the routers and the problem mapping
 * @param routers the routers whose before-auth middleware sees the refusal
 * @param apiKey the key check, when keys are configured
 */
export function edgeRefusals(
  app: Pick<Hono, 'routes'>,
  ctx: ActorContext,
  routers: readonly ActorRouter[],
  apiKey?: ApiKeyRefusal,
): EdgeRefusals {
  const allowed = allowedMethods(app);
  const pending = new WeakMap<Request, ActorError>();
  const refusals = new Hono<ActorEnv>();
  for (const router of routers) router.mountBeforeAuth?.(refusals, ctx);
  refusals.all('*', function refuseAtEdge(c) {
    throw pending.get(c.req.raw) ?? new Error('a request reached the edge refusal without its refusal');
  });
  mapActorErrors(refusals, ctx.logger);
  return {
    unlistedMethod(method, path) {
      const methods = allowed(path);
      if (methods.length === 0 || methods.includes(method)) return undefined;
      const allow = methods.join(', ');
      return new ActorError('method_not_allowed', {
        detail: `${method} is not allowed here; use ${allow}`,
        headers: { Allow: allow },
      });
    },
    missingKey: apiKey ?? (() => undefined),
    answer(request, refusal, bindings, executionCtx) {
      pending.set(request, refusal);
      return refusals.fetch(request, bindings, executionCtx);
    },
  };
}
