/**
 * `actorkit/bun`: serves an actor under Bun (`serve`), with graceful shutdown.
 * @module actorkit/bun
 */
import type { ActorApp } from '../../app/create-actor-app.js';
import { processSignals } from '../signal-host.js';
import { type RuntimeListener, type ServableApp, serveActor } from '../serve-actor.js';
import { FALLBACK_HOST, type ServeHandle, type ServeOptions } from '../serve-options.js';
import { settleWithin } from '../settle-within.js';
import { type BunRequestIp, bunRequestBindings } from './bun-request-bindings.js';

export type { ServeHandle, ServeOptions } from '../serve-options.js';

/** The part of Bun's `Server` the adapter uses (typed locally: no `@types/bun` needed). */
interface BunServer extends BunRequestIp {
  readonly port: number;
  /** Stops listening; resolves once open requests are answered, or at once with `closeActiveConnections`. */
  stop(closeActiveConnections?: boolean): Promise<void>;
}

/** The options of `Bun.serve` the adapter passes. */
interface BunServeOptions {
  readonly port: number;
  readonly hostname: string;
  /** Seconds a client may stay silent before Bun closes its connection (Bun's default is 10, its maximum 255). */
  readonly idleTimeout: number;
  readonly development: boolean;
  fetch(request: Request, server: BunServer): Response | Promise<Response>;
}

/** The part of the `Bun` global the adapter uses. */
interface BunGlobal {
  serve(options: BunServeOptions): BunServer;
}

declare const Bun: BunGlobal;

/**
 * Seconds a client may stay silent (idle keep-alive, stalled headers or body) before Bun
 * closes its connection. 65 s, like Node's keep-alive time-out: longer than the 60 s idle
 * time-out of common load balancers, so they close first. A handler waiting on a slow model
 * is not cut by it.
 */
export const BUN_IDLE_TIMEOUT_S = 65;

/**
 * The request with an absolute URL: Bun hands a request whose `Host` is empty over with a bare
 * path as its `url` (`/health`), which routing and every `new URL(request.url)` would misread;
 * such a request gets `http://` and `FALLBACK_HOST` in front, as Node's adapter does. Any other request is
 * passed on as it is.
 */
function withAbsoluteUrl(request: Request): Request {
  return request.url.startsWith('/') ? new Request(`http://${FALLBACK_HOST}${request.url}`, request) : request;
}

async function listenOnBun(app: ServableApp, address: { port: number; hostname: string }): Promise<RuntimeListener> {
  const server = Bun.serve({
    port: address.port,
    hostname: address.hostname,
    idleTimeout: BUN_IDLE_TIMEOUT_S,
    development: false,
    fetch: (request, bunServer) => app.fetch(withAbsoluteUrl(request), bunRequestBindings(bunServer, request)),
  });
  return {
    port: server.port,
    async close(timeoutMs) {
      if (!(await settleWithin(server.stop(false), timeoutMs))) await server.stop(true);
    },
  };
}

/**
 * Serves an actor app on Bun through `Bun.serve`. Listens on `PORT` (default 8080; 0 picks a
 * free port), logs `actor_listening`, then starts the actor. SIGTERM or SIGINT drains it
 * within the grace period (`SHUTDOWN_GRACE_MS`, default 10 s) and exits 0.
 * @param app the app returned by `createActorApp`, or a function that builds it (then a start-up
 *   refusal while building it is one line on stderr and exit 1, not a stack trace)
 * @param options port, hostname, grace period and signal handling
 * @example
 * import { serve } from 'actorkit/bun';
 * await serve(() => createActorApp({ ... }));
 */
export function serve(app: ActorApp | (() => ActorApp), options: ServeOptions = {}): Promise<ServeHandle> {
  return serveActor(app, options, { name: 'bun', env: process.env, listen: listenOnBun, ...processSignals });
}
