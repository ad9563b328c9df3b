import type { Hono } from 'hono';
import type { ActorEnv } from '../context/actor-context.js';
import { readRequestHeader } from '../core/runtime-bindings.js';
import type { ActorTracer, TraceSpan } from '../telemetry/actor-tracer.js';
import { errorTypeOf } from '../telemetry/with-span.js';
import { routeTemplate, type ActorFetch } from './observe-requests.js';

/** The route label of a request no route matched: its span is named by the method alone. */
const UNMATCHED = '/*';

const isEventStream = (response: Response) =>
  (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');

/** `response` with a body that calls `end` once it is read to the end, fails or is cancelled by the client. */
function endWhenBodyEnds(response: Response, body: ReadableStream<Uint8Array>, end: () => void): Response {
  const reader = body.getReader();
  const watched = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) {
            end();
            controller.close();
          } else controller.enqueue(next.value);
        } catch (error) {
          end();
          controller.error(error);
        }
      },
      cancel(reason) {
        end();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(watched, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Wraps the actor's `fetch` in an HTTP server span per request (`POST /agent/invoke`, with the
 * `http.*` attributes of the OpenTelemetry HTTP conventions), whose parent is the caller's
 * `traceparent` when it sent one; the turn's spans are its children. A 5xx marks it failed.
 * A streamed answer (`text/event-stream`) ends the span when the stream ends. The routes of
 * `untracedRoutes` (probes and scrapes) get no span; without tracing `fetch` is called as is.
 * @param app the actor's Hono app, for the route template of a request
 * @param fetch the actor's observed `fetch` (`observeRequests`)
 * @param tracer the actor's tracer
 * @param untracedRoutes the Hono route templates that get no span, e.g. `/health`
 */
export function traceRequests(
  app: Hono<ActorEnv>,
  fetch: ActorFetch,
  tracer: ActorTracer,
  untracedRoutes: ReadonlySet<string>,
): ActorFetch {
  return function tracedFetch(request, runtime, executionCtx) {
    if (!tracer.enabled) return fetch(request, runtime, executionCtx);
    const route = routeTemplate(app, request, { requestId: '', runtime, keepInFlight: () => () => {} });
    if (untracedRoutes.has(route)) return fetch(request, runtime, executionCtx);
    const url = new URL(request.url);
    const span: TraceSpan = tracer.startSpan(route === UNMATCHED ? request.method : `${request.method} ${route}`, {
      kind: 'server',
      incomingHeader: (name) => readRequestHeader(request, runtime, name),
      attributes: {
        'http.request.method': request.method,
        'http.route': route === UNMATCHED ? undefined : route,
        'url.path': url.pathname,
        'url.scheme': url.protocol.slice(0, -1),
        'user_agent.original': readRequestHeader(request, runtime, 'user-agent') ?? undefined,
        'client.address': typeof runtime?.clientAddress === 'function' ? runtime.clientAddress() : undefined,
      },
    });
    const failed = (error: unknown) => {
      span.fail(errorTypeOf(error));
      span.end();
      throw error;
    };
    const answered = (response: Response): Response => {
      span.setAttributes({ 'http.response.status_code': response.status });
      if (response.status >= 500) span.fail(String(response.status));
      if (response.body !== null && isEventStream(response))
        return endWhenBodyEnds(response, response.body, () => span.end());
      span.end();
      return response;
    };
    let answer: Response | Promise<Response>;
    try {
      answer = span.run(() => fetch(request, runtime, executionCtx));
    } catch (error) {
      return failed(error);
    }
    return answer instanceof Promise ? answer.then(answered, failed) : answered(answer);
  };
}
