/**
 * `actorkit/deno`: serves an actor under Deno (`serve`), with graceful shutdown.
 * @module actorkit/deno
 */
import type { ActorApp } from '../../app/create-actor-app.js';
import { type RuntimeListener, type ServableApp, serveActor } from '../serve-actor.js';
import type { ServeHandle, ServeOptions } from '../serve-options.js';
import { settleWithin } from '../settle-within.js';
import { signalHost } from '../signal-host.js';
import { type DenoServeInfo, denoRequestBindings } from './deno-request-bindings.js';

export type { ServeHandle, ServeOptions } from '../serve-options.js';

/** The part of `Deno.HttpServer` the adapter uses (typed locally: no Deno type package needed). */
interface DenoHttpServer {
  readonly addr: { readonly port: number; readonly hostname: string };
  /** Stops accepting connections; resolves once open requests are answered. */
  shutdown(): Promise<void>;
}

/** The options of `Deno.serve` the adapter passes. */
interface DenoServeOptions {
  readonly port: number;
  readonly hostname: string;
  /** Aborting closes the server and cuts every connection at once. */
  readonly signal: AbortSignal;
  /** Called once listening; Deno prints a line by default, the adapter logs its own event instead. */
  onListen(address: { readonly port: number; readonly hostname: string }): void;
}

/** The signals the adapter listens to. */
type DenoSignal = 'SIGTERM' | 'SIGINT';

/** The part of the `Deno` global the adapter uses. */
interface DenoGlobal {
  serve(
    options: DenoServeOptions,
    handler: (request: Request, info: DenoServeInfo) => Response | Promise<Response>,
  ): DenoHttpServer;
  readonly env: { toObject(): Record<string, string> };
  addSignalListener(signal: DenoSignal, handler: () => void): void;
  removeSignalListener(signal: DenoSignal, handler: () => void): void;
  exit(code: number): never;
}

declare const Deno: DenoGlobal;

/**
 * The answer as Deno should send it. Deno writes `connection: close` itself on its answer to a
 * request whose body was left unread, so the `Connection: close` the actor sets on such an answer
 * (see `refusedUnreadBody`, e.g. every 413) would go out a second time: it is dropped there.
 */
function withSingleConnectionHeader(request: Request, response: Response): Response {
  const announcesBody =
    request.headers.has('transfer-encoding') || Number(request.headers.get('content-length') ?? '0') > 0;
  if (!announcesBody || request.bodyUsed || !response.headers.has('connection')) return response;
  try {
    response.headers.delete('connection');
    return response;
  } catch {
    // A response with immutable headers (a fetched one) is copied.
    const headers = new Headers(response.headers);
    headers.delete('connection');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

async function listenOnDeno(app: ServableApp, address: { port: number; hostname: string }): Promise<RuntimeListener> {
  const abort = new AbortController();
  const server = Deno.serve(
    { port: address.port, hostname: address.hostname, signal: abort.signal, onListen: () => {} },
    (request, info) => {
      const answer = app.fetch(request, denoRequestBindings(info));
      return answer instanceof Promise
        ? answer.then((response) => withSingleConnectionHeader(request, response))
        : withSingleConnectionHeader(request, answer);
    },
  );
  return {
    port: server.addr.port,
    async close(timeoutMs) {
      // Deno cannot cut connections once a graceful shutdown has begun (aborting then throws
      // inside Deno), so a request still open after the grace period ends with the process.
      if (timeoutMs <= 0) abort.abort();
      else await settleWithin(server.shutdown(), timeoutMs);
    },
  };
}

const denoSignals = signalHost(
  (signal, listener) => Deno.addSignalListener(signal, listener),
  (signal, listener) => Deno.removeSignalListener(signal, listener),
  (code) => Deno.exit(code),
);

/**
 * Serves an actor app on Deno through `Deno.serve`. Listens on `PORT` (default 8080; 0 picks
 * a free port), logs `actor_listening`, then starts the actor. SIGTERM or SIGINT drains it
 * within the grace period (`SHUTDOWN_GRACE_MS`, default 10 s) and exits 0.
 * @param app the app returned by `createActorApp`, or a function that builds it (then a start-up
 *   refusal while building it is one line on stderr and exit 1, not a stack trace)
 * @param options port, hostname, grace period and signal handling
 * @example
 * import { serve } from 'actorkit/deno';
 * await serve(() => createActorApp({ ... }));
 */
export function serve(app: ActorApp | (() => ActorApp), options: ServeOptions = {}): Promise<ServeHandle> {
  return serveActor(app, options, { name: 'deno', env: Deno.env.toObject(), listen: listenOnDeno, ...denoSignals });
}
