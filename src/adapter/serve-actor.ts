import type { RuntimeBindings } from '../core/runtime-bindings.js';
import type { ActorEnvironment } from '../environment/runtime-config.js';
import type { EnvironmentConfig } from '../environment/environment-schema.js';
import { ALLOWED_HOSTS, guardsHostNames } from '../environment/runtime-config.js';
import { isLoopbackHostname } from '../core/loopback-host.js';
import { StartupRefusal } from '../environment/startup-refusal.js';
import type { Logger } from '../log/logger.js';
import { localUrl, resolveServeOptions, type ServeHandle, type ServeOptions } from './serve-options.js';
import type { ShutdownSignal, SignalHost } from './signal-host.js';

/** The part of an actor a shutdown drives (`app.actor` of an `ActorApp`). */
interface ShutdownTarget {
  readonly logger: Logger;
  /** Begins draining, waits for in-flight work up to `graceMs`, flushes stats, closes the store. */
  shutdown(options?: { graceMs?: number }): Promise<void>;
}

/** A runtime's listening socket, as the shutdown sequence sees it. */
interface ClosableListener {
  /** Stops accepting connections; resolves once open requests are answered, cutting them after `timeoutMs`. */
  close(timeoutMs: number): Promise<void>;
}

/** What the shared serve logic needs of an app: its fetch handler and its actor runtime. */
export interface ServableApp {
  /** Answers one request; the adapter passes what it knows of the request beside it. */
  fetch(request: Request, runtime?: RuntimeBindings): Response | Promise<Response>;
  readonly actor: ShutdownTarget & {
    /** Opens the store, migrates, loads settings overrides, marks the actor ready. */
    start(): Promise<void>;
    /** The app's typed environment; `PORT` and `SHUTDOWN_GRACE_MS` come from it (else from the runtime's). */
    readonly environment?: EnvironmentConfig;
  };
}

/** A listening server of one runtime. */
export interface RuntimeListener extends ClosableListener {
  /** The port actually bound. */
  readonly port: number;
}

/** What an adapter tells the shared serve logic about its runtime. */
export interface ServeRuntime extends SignalHost {
  /** `node`, `bun` or `deno`: logged with `actor_listening`. */
  readonly name: string;
  /** The process environment (for `PORT` and `SHUTDOWN_GRACE_MS` of an app that carries no typed environment). */
  readonly env: ActorEnvironment;
  /** Starts the runtime's HTTP server on `app.fetch`; rejects when the address cannot be bound. */
  listen(app: ServableApp, address: { readonly port: number; readonly hostname: string }): Promise<RuntimeListener>;
}

/**
 * Logs `allowed_hosts_needed` once when a keyless actor off the platform listens beyond loopback
 * with an empty `ALLOWED_HOSTS`: it answers only loopback `Host` names (see `guardsHostNames`),
 * so callers reaching it by another name or address (a container's port mapping, a load
 * balancer) get 421 until their name is listed.
 */
function warnWhenOnlyLoopbackNamesAnswer(
  environment: EnvironmentConfig | undefined,
  hostname: string,
  logger: ServableApp['actor']['logger'],
): void {
  if (
    environment === undefined ||
    !guardsHostNames(environment) ||
    environment[ALLOWED_HOSTS].length > 0 ||
    isLoopbackHostname(hostname.toLowerCase())
  )
    return;
  logger.warn('allowed_hosts_needed', {
    hostname,
    reason: `listening on ${hostname} without an API key: only loopback Host names are answered (others get 421); set ${ALLOWED_HOSTS} to the names callers use (e.g. ${ALLOWED_HOSTS}=actor.example,10.0.0.5:8080), or turn API keys on`,
  });
}

/**
 * The shutdown sequence: the actor drains while the listener still answers (so `/ready` says
 * 503 and new invokes get 503 `draining`), then the listener stops accepting and lets the
 * remaining requests finish within what is left of the grace period. The returned function runs
 * the sequence once; later calls share the first run.
 */
function createGracefulShutdown(
  actor: ShutdownTarget,
  listener: ClosableListener,
  graceMs: number,
): (reason: string) => Promise<void> {
  let running: Promise<void> | undefined;
  return function gracefulShutdown(reason) {
    running ??= runShutdown(actor, listener, graceMs, reason);
    return running;
  };
}

async function runShutdown(
  actor: ShutdownTarget,
  listener: ClosableListener,
  graceMs: number,
  reason: string,
): Promise<void> {
  const started = Date.now();
  actor.logger.info('actor_shutdown_started', { reason, grace_ms: graceMs });
  let failure: unknown;
  try {
    await actor.shutdown({ graceMs });
  } catch (error) {
    failure = error;
    actor.logger.error('actor_shutdown_failed', { reason, error });
  }
  await listener.close(Math.max(0, graceMs - (Date.now() - started)));
  actor.logger.info('actor_server_closed', { reason, duration_ms: Date.now() - started, clean: failure === undefined });
  if (failure !== undefined) throw failure;
}

/**
 * Ends a process whose actor refused to start: a `StartupRefusal` becomes one line on stderr
 * (the variable and what to do, no stack trace) and exit code 1. Any other error, or a
 * process the adapter does not own (`signals: false`), is left to the caller.
 */
function refuseStart(error: unknown, ownsProcess: boolean, exit: SignalHost['exit']): void {
  if (!(error instanceof StartupRefusal) || !ownsProcess) return;
  console.error(`actorkit: refusing to start: ${error.message}`);
  exit(1);
}

/**
 * The body of every adapter's `serve`: listens first (so `/health` answers and `/ready` says
 * `starting` during start-up), logs `actor_listening`, then starts the actor. With `signals`
 * on, SIGTERM or SIGINT drains the actor, closes the server and exits 0 (1 if the shutdown
 * failed); a second signal during the drain exits 1 at once. With `signals` on, a
 * `StartupRefusal` (from building the app, when given a factory, or from its start) prints one
 * line on stderr and exits 1 (see `refuseStart`).
 * @param source the actor app, or a function that builds it
 * @param options serve options (see `ServeOptions`)
 * @param runtime the adapter's runtime binding
 */
export async function serveActor(
  source: ServableApp | (() => ServableApp),
  options: ServeOptions,
  runtime: ServeRuntime,
): Promise<ServeHandle> {
  let app: ServableApp;
  let resolved: ReturnType<typeof resolveServeOptions>;
  try {
    app = typeof source === 'function' ? source() : source;
    resolved = resolveServeOptions(options, app.actor.environment ?? runtime.env);
  } catch (error) {
    refuseStart(error, options.signals ?? true, runtime.exit);
    throw error;
  }
  const { logger } = app.actor;
  let listener: RuntimeListener;
  try {
    listener = await runtime.listen(app, { port: resolved.port, hostname: resolved.hostname });
  } catch (error) {
    logger.error('actor_listen_failed', {
      runtime: runtime.name,
      hostname: resolved.hostname,
      port: resolved.port,
      error,
    });
    throw error;
  }
  const url = localUrl(resolved.hostname, listener.port);
  logger.info('actor_listening', { runtime: runtime.name, hostname: resolved.hostname, port: listener.port, url });
  warnWhenOnlyLoopbackNamesAnswer(app.actor.environment, resolved.hostname, logger);

  const shutdown = createGracefulShutdown(app.actor, listener, resolved.graceMs);
  let removeSignalHandlers = () => {};
  if (resolved.signals) {
    let received: ShutdownSignal | undefined;
    removeSignalHandlers = runtime.onShutdownSignal(function onShutdownSignal(signal) {
      if (received !== undefined) {
        logger.warn('actor_shutdown_forced', { signal, first_signal: received });
        runtime.exit(1);
        return;
      }
      received = signal;
      shutdown(signal).then(
        () => runtime.exit(0),
        () => runtime.exit(1),
      );
    });
  }

  try {
    await app.actor.start();
  } catch (error) {
    logger.error('actor_start_failed', { error });
    removeSignalHandlers();
    await listener.close(0);
    refuseStart(error, resolved.signals, runtime.exit);
    throw error;
  }

  return {
    port: listener.port,
    url,
    close() {
      removeSignalHandlers();
      return shutdown('close');
    },
  };
}
