/**
 * `actorkit/node`: serves an actor under Node (`serve`), with graceful shutdown and the V8 heap defaults.
 * @module actorkit/node
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { ActorApp } from '../../app/create-actor-app.js';
import { ActorError } from '../../core/actor-error.js';
import { isAcceptableHost } from '../../core/host-header.js';
import { problemResponse } from '../../core/problem-response.js';
import { processSignals } from '../signal-host.js';
import { applyNodeHeapDefaults } from './heap-defaults.js';
import { NodeRequestBindings } from './node-request-bindings.js';
import { type RuntimeListener, type ServableApp, serveActor } from '../serve-actor.js';
import { FALLBACK_HOST, type ServeHandle, type ServeOptions } from '../serve-options.js';

// Applied as the entry loads `actorkit/node`, before the app's own modules: V8 never shrinks the
// new space start-up has grown, so a cap set only in `serve` came too late once the app grew.
applyNodeHeapDefaults();

export type { ServeHandle, ServeOptions } from '../serve-options.js';

/**
 * Time limits of the Node HTTP server, so a slow or idle client cannot hold a connection
 * forever. A client too slow to send its request gets 408 and the connection is closed.
 */
export const NODE_SERVER_TIMEOUTS = {
  /** The request headers must arrive within 15 s. */
  headersTimeoutMs: 15_000,
  /** The whole request, body included, must arrive within 60 s (a 1 MiB body needs ~17 KiB/s). */
  requestTimeoutMs: 60_000,
  /**
   * An idle keep-alive connection is closed after 65 s: longer than the 60 s idle time-out of
   * common load balancers and proxies, so they close first and never reuse a dead connection.
   */
  keepAliveTimeoutMs: 65_000,
  /** A socket with no traffic in either direction for 150 s is destroyed: outlasts a 120 s model call. */
  socketIdleTimeoutMs: 150_000,
  /** How often Node enforces the header and request limits (its default, 30 s, lets them overrun). */
  checkIntervalMs: 1_000,
} as const;

/**
 * The answer to a request `@hono/node-server` could not turn into a Fetch `Request` (a request
 * target that is no URL path): a 400 problem, where the server alone would send an empty 400.
 * Any other failure before the app answered is a 500 problem.
 */
function unservableRequest(error: unknown): Response {
  const requestId = crypto.randomUUID();
  return problemResponse(
    error instanceof RequestError
      ? new ActorError('bad_request', { detail: 'The request target is not a valid URL path' })
      : error,
    requestId,
  );
}

/**
 * The Node request handler: `@hono/node-server`'s listener around `app.fetch`. It builds the
 * request URL from `Host`, so a `Host` that is not a plain host is hidden from it (the URL
 * gets `FALLBACK_HOST`, the path stays the request line's); the actor's fetch edge reads the
 * real one from the raw headers and answers 400 `invalid_host`.
 */
function nodeRequestHandler(app: ServableApp): (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void> {
  const listener = getRequestListener(
    (request, bindings) => app.fetch(request, new NodeRequestBindings(bindings.incoming)),
    {
      hostname: FALLBACK_HOST,
      errorHandler: unservableRequest,
    },
  );
  return (incoming, outgoing) => {
    if (!isAcceptableHost(incoming.headers.host ?? null)) delete incoming.headers.host;
    return listener(incoming, outgoing);
  };
}

function listenOnNode(app: ServableApp, address: { port: number; hostname: string }): Promise<RuntimeListener> {
  const server = createServer(
    { connectionsCheckingInterval: NODE_SERVER_TIMEOUTS.checkIntervalMs },
    nodeRequestHandler(app),
  );
  server.headersTimeout = NODE_SERVER_TIMEOUTS.headersTimeoutMs;
  server.requestTimeout = NODE_SERVER_TIMEOUTS.requestTimeoutMs;
  server.keepAliveTimeout = NODE_SERVER_TIMEOUTS.keepAliveTimeoutMs;
  server.timeout = NODE_SERVER_TIMEOUTS.socketIdleTimeoutMs;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.hostname, () => {
      server.off('error', reject);
      const bound = server.address();
      resolve({
        port: typeof bound === 'object' && bound !== null ? bound.port : address.port,
        close: (timeoutMs) => closeNodeServer(server, timeoutMs),
      });
    });
  });
}

function closeNodeServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * Serves an actor app on Node (>= 20.19) through `@hono/node-server`. Listens on `PORT`
 * (default 8080; 0 picks a free port), logs `actor_listening`, then starts the actor. SIGTERM
 * or SIGINT drains it within the grace period (`SHUTDOWN_GRACE_MS`, default 10 s) and exits 0.
 * Server time-outs: see `NODE_SERVER_TIMEOUTS`. Before it builds the app it applies the
 * actor's V8 heap sizing (`NODE_HEAP_DEFAULTS`; `NODE_HEAP_TUNING=false` leaves V8's own).
 * @param app the app returned by `createActorApp`, or a function that builds it (then a start-up
 *   refusal while building it is one line on stderr and exit 1, not a stack trace)
 * @param options port, hostname, grace period and signal handling
 * @example
 * import { serve } from 'actorkit/node';
 * await serve(() => createActorApp({ ... }));
 */
export function serve(app: ActorApp | (() => ActorApp), options: ServeOptions = {}): Promise<ServeHandle> {
  applyNodeHeapDefaults();
  return serveActor(app, options, { name: 'node', env: process.env, listen: listenOnNode, ...processSignals });
}
