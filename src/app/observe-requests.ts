import type { ExecutionContext, Hono } from 'hono';
import type { ActorBindings, ActorEnv } from '../context/actor-context.js';
import { readRequestHeader, type RuntimeBindings } from '../core/runtime-bindings.js';
import { invalidHostError, isAcceptableHost } from '../core/host-header.js';
import { problemResponse } from '../core/problem-response.js';
import type { ActorLifecycle } from '../core/actor-lifecycle.js';
import type { HttpMetrics } from '../context/http-metrics.js';
import { requestIdFor } from './request-id.js';
import type { RequestGuard } from './request-guard.js';
import type { EdgeRefusals } from './edge-refusals.js';

/**
 * Whether the connection should close after `response` because the request's body was refused
 * without being read to its end: every 413, and any error answer to a request that announced a
 * body nobody read. A keep-alive client would otherwise send its next request on a socket the
 * server is still draining (or cuts after a short drain: "socket hang up"). Only error answers
 * to requests with a body pay for the check, so `/health` stays cheap.
 * @param request the request as the runtime handed it over
 * @param response the answer about to be sent
 */
function refusedUnreadBody(request: Request, response: Response): boolean {
  if (response.status === 413) return true;
  if (response.status < 400 || request.method === 'GET' || request.method === 'HEAD') return false;
  const announcesBody =
    request.headers.has('transfer-encoding') || Number(request.headers.get('content-length') ?? '0') > 0;
  return announcesBody && !request.bodyUsed;
}

/** `fetch` as a runtime adapter calls it: the request, then what the adapter tells about it (`RuntimeBindings`). */
export type ActorFetch = (
  request: Request,
  runtime?: RuntimeBindings,
  executionCtx?: ExecutionContext,
) => Response | Promise<Response>;

/** What `observeRequests` needs of the actor. */
export interface RequestObserverOptions {
  /** Counts each request in flight until its response is ready. */
  readonly lifecycle: Pick<ActorLifecycle, 'enter'>;
  /** Counts each answered request by method, route template and status. */
  readonly metrics: Pick<HttpMetrics, 'observe'>;
  /** Refuses requests before any route sees them (`requestGuard`: foreign `Host` and `Origin`). */
  readonly guard?: RequestGuard;
  /** Refuses a method a known path does not have (405), then a request without a valid key (401), after the guard and before any route. */
  readonly refusals?: EdgeRefusals;
}

/** Where a request lands: the pattern of the last route or middleware that matches it, `/*` when none does. */
export function routeTemplate(
  app: Hono<ActorEnv>,
  request: Request,
  bindings: ActorBindings,
  path = app.getPath(request, { env: bindings }),
): string {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const matched = app.router.match(method, path)[0];
  return matched[matched.length - 1]?.[0][1].path ?? '/*';
}

/**
 * Sends the request id back on `response`, with `Connection: close` when the request's body was
 * refused unread (see `refusedUnreadBody`); a response with immutable headers (a fetched one) is copied.
 */
function withEdgeHeaders(response: Response, requestId: string, close: boolean): Response {
  const set = (headers: Headers) => {
    headers.set('X-Request-Id', requestId);
    if (close) headers.set('Connection', 'close');
  };
  try {
    set(response.headers);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    set(headers);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/** The route label of a request refused at the edge, before any route saw it. */
const REFUSED_AT_EDGE = '/*';

/**
 * Wraps an actor app's `fetch` with what every request gets, outside Hono's middleware chain:
 * an id (`c.env.requestId` below, `X-Request-Id` on the response), in-flight tracking for the
 * graceful shutdown, and the HTTP metrics. A request whose `Host` is not a plain host gets a 400
 * `invalid_host` problem here: runtimes build the URL Hono routes on from `Host`, so only a
 * plain one leaves the path of the request line as the routed path. Then `options.guard` may
 * refuse it (a foreign `Host` or `Origin`), and `options.refusals` a method the path does not have
 * (405) or a missing key (401), also before any route. A route that answers synchronously (such as
 * `/health`) stays synchronous: a middleware would turn every request into a chain of promises,
 * which cost a fifth of a bare `/health` answer on Node.
 * @param app the actor's Hono app, whose own `fetch` is wrapped
 * @param options the lifecycle and the metrics
 * @returns the `fetch` the runtimes call
 */
export function observeRequests(app: Hono<ActorEnv>, options: RequestObserverOptions): ActorFetch {
  const honoFetch = app.fetch;
  const { lifecycle, metrics, guard, refusals } = options;
  return function observedFetch(request, runtime, executionCtx) {
    const refusal = isAcceptableHost(readRequestHeader(request, runtime, 'host'))
      ? guard?.(request, runtime)
      : invalidHostError();
    if (refusal !== undefined) {
      const requestId = requestIdFor(request, runtime);
      const refused = problemResponse(refusal, requestId);
      metrics.observe(request.method, REFUSED_AT_EDGE, refused.status, 0);
      return withEdgeHeaders(refused, requestId, refusedUnreadBody(request, refused));
    }
    const leave = lifecycle.enter();
    let kept = false;
    const keepInFlight = () => {
      kept = true;
      return leave;
    };
    const bindings: ActorBindings = { requestId: requestIdFor(request, runtime), runtime, keepInFlight };
    const started = performance.now();
    const path = app.getPath(request, { env: bindings });
    // A 405 is metered as refused at the edge (no route has the method); a 401 under its route.
    const methodRefusal = refusals?.unlistedMethod(request.method, path);
    const refusedHere = methodRefusal ?? refusals?.missingKey(request, runtime, path);
    const answered = (response: Response): Response => {
      if (!kept) leave();
      metrics.observe(
        request.method,
        methodRefusal === undefined ? routeTemplate(app, request, bindings, path) : REFUSED_AT_EDGE,
        response.status,
        (performance.now() - started) / 1000,
      );
      return withEdgeHeaders(response, bindings.requestId, refusedUnreadBody(request, response));
    };
    let answer: Response | Promise<Response>;
    try {
      answer =
        refusedHere === undefined
          ? honoFetch(request, bindings, executionCtx)
          : refusals!.answer(request, refusedHere, bindings, executionCtx);
    } catch (error) {
      leave();
      throw error;
    }
    if (!(answer instanceof Promise)) return answered(answer);
    return answer.then(answered, (error: unknown) => {
      leave();
      throw error;
    });
  };
}
