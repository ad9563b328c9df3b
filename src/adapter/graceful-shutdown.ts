import type { Logger } from '../log/logger.js';

/** The part of an actor a shutdown drives (`app.actor` of an `ActorApp`). */
export interface ShutdownTarget {
  readonly logger: Logger;
  /** Begins draining, waits for in-flight work up to `graceMs`, flushes stats, closes the store. */
  shutdown(options?: { graceMs?: number }): Promise<void>;
}

/** A runtime's listening socket, as the shutdown sequence sees it. */
export interface ClosableListener {
  /** Stops accepting connections; resolves once open requests are answered, cutting them after `timeoutMs`. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * Builds the shutdown sequence shared by every adapter: the actor drains while the listener
 * still answers (so `/ready` says 503 and new invokes get 503 `draining`), then the listener
 * stops accepting and lets the remaining requests finish within what is left of the grace
 * period. The returned function runs the sequence once; later calls share the first run.
 * @param actor the actor runtime of the app
 * @param listener the runtime's server
 * @param graceMs the whole budget for draining, in ms
 */
export function createGracefulShutdown(
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
