import type { ActorApp } from '../../app/create-actor-app.js';
import { type RuntimeListener, type ServableApp, serveActor } from '../serve-actor.js';
import type { ServeHandle, ServeOptions } from '../serve-options.js';
import { settleWithin } from '../settle-within.js';
import { signalHost } from '../signal-host.js';
import type { DenoGlobal } from './deno-global.js';
import { denoRequestBindings } from './deno-request-bindings.js';
import { withSingleConnectionHeader } from './single-connection-header.js';

export type { ServeHandle, ServeOptions } from '../serve-options.js';

declare const Deno: DenoGlobal;

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
