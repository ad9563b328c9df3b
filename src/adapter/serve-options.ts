import type { ActorEnvironment } from '../environment/runtime-config.js';
import type { EnvironmentConfig } from '../environment/environment-schema.js';
import { ENVIRONMENT_VARIABLES } from '../environment/environment-variables.js';
import { environmentOf } from '../environment/parse-environment.js';

/** Options of `serve(app, options)`, the same for the Node, Bun and Deno adapters. */
export interface ServeOptions {
  /** TCP port; default `PORT`, else 8080. `0` picks a free port (the real one is returned and logged). */
  readonly port?: number;
  /** Interface to listen on; default `HOST`, else `0.0.0.0` (every IPv4 interface, as a container needs). */
  readonly hostname?: string;
  /** How long a shutdown waits for in-flight requests, in ms; default `SHUTDOWN_GRACE_MS`, else 10 000. */
  readonly graceMs?: number;
  /** Default true: SIGTERM and SIGINT shut the actor down gracefully and end the process. */
  readonly signals?: boolean;
}

/** A running server, as `serve` resolves it. */
export interface ServeHandle {
  /** The port the server listens on (the real one when 0 was asked). */
  readonly port: number;
  /** A URL that reaches the server from this machine, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** Shuts the actor down gracefully (as a signal would) without ending the process. */
  close(): Promise<void>;
}

/** `ServeOptions` with every default applied. */
export interface ResolvedServeOptions {
  readonly port: number;
  readonly hostname: string;
  readonly graceMs: number;
  readonly signals: boolean;
}

/** Port used when neither the options nor `PORT` name one. */
export const DEFAULT_PORT = ENVIRONMENT_VARIABLES.PORT.default;

/** Shutdown grace period used when neither the options nor `SHUTDOWN_GRACE_MS` name one. */
export const DEFAULT_GRACE_MS = ENVIRONMENT_VARIABLES.SHUTDOWN_GRACE_MS.default;

function checkPort(value: number, source: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    throw new RangeError(`${source} must be an integer from 0 to 65535, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Applies defaults and the environment (`PORT`, `HOST`, `SHUTDOWN_GRACE_MS`) to serve options.
 * Explicit options win over the environment; a malformed value throws at once.
 * @param options what the caller passed to `serve`
 * @param env the app's typed environment (or a raw one, parsed here)
 */
export function resolveServeOptions(
  options: ServeOptions,
  env: ActorEnvironment | EnvironmentConfig,
): ResolvedServeOptions {
  const environment = environmentOf(env);
  const port = options.port === undefined ? environment.PORT : checkPort(options.port, 'port');
  const graceMs = options.graceMs ?? environment.SHUTDOWN_GRACE_MS;
  if (!Number.isSafeInteger(graceMs) || graceMs < 0) {
    throw new RangeError(`graceMs must be a non-negative integer, got ${JSON.stringify(graceMs)}`);
  }
  const hostname = options.hostname ?? environment.HOST;
  if (hostname.trim() === '') throw new RangeError('hostname must not be empty');
  return { port, hostname, graceMs, signals: options.signals ?? true };
}

/** The authority of a request's URL when its `Host` is absent, empty or not a plain host (every adapter uses it). */
export const FALLBACK_HOST = 'localhost';

/** A URL that reaches a server listening on `hostname:port` from this machine. */
export function localUrl(hostname: string, port: number): string {
  const host =
    hostname === '0.0.0.0'
      ? '127.0.0.1'
      : hostname === '::'
        ? '[::1]'
        : hostname.includes(':')
          ? `[${hostname}]`
          : hostname;
  return `http://${host}:${port}`;
}
