import { ActorError } from '../core/actor-error.js';
import { constantTimeEqual } from '../core/header-key.js';
import { hasForeignOrigin } from '../core/request-origin.js';
import { readRequestHeader, type RuntimeBindings } from '../core/runtime-bindings.js';
import { ALLOWED_HOSTS, type RuntimeConfig } from '../environment/runtime-config.js';
import { originNotAllowedError } from '../middleware/origin-check/index.js';

/** Methods that read: a browser sends them cross-origin without a preflight only to read, never to change state. */
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Judges a request before any route sees it: the problem to answer with, or undefined to let it
 * through. Synchronous, so a route that answers synchronously (such as `/health`) stays so.
 */
export type RequestGuard = (request: Request, runtime: RuntimeBindings | undefined) => ActorError | undefined;

/** The header the platform's gateway and service addresses send `PLATFORM_SECRET` in. */
const PLATFORM_SECRET_HEADER = 'x-platform-secret';

/** The 421 problem of a request whose `Host` the actor does not answer (see `requestGuard`). */
function hostNotAllowedError(host: string): ActorError {
  return new ActorError('host_not_allowed', {
    detail: `This actor has no API key, so it answers only loopback names and those listed in ${ALLOWED_HOSTS}; ${JSON.stringify(host)} is neither (add it to ${ALLOWED_HOSTS}, or turn API keys on)`,
  });
}

/**
 * The guard of an actor's fetch edge against other web pages in the user's browser:
 * - on the platform with `PLATFORM_SECRET` (`config.platformSecret`), a request that does not carry
 *   it in `X-Platform-Secret` (compared in constant time) gets 403 `not_from_platform`: only the
 *   platform's gateway and service addresses reach the replica, not a process of the machine nor
 *   a page that found its port;
 * - without an API key and off the platform (`config.allowedHosts` set), a `Host` that is not a
 *   loopback name nor in `ALLOWED_HOSTS` gets 421 `host_not_allowed` — a page whose DNS name was
 *   re-pointed to the actor's address (DNS rebinding) reaches it under its own name;
 * - in every mode, a request of any method but `GET`, `HEAD` and `OPTIONS` from a browser page of
 *   another origin gets 403 `origin_not_allowed`.
 * A request without `Host` (HTTP/1.0, `app.request`), or without `Sec-Fetch-Site` and `Origin`
 * (curl, SDKs), is not a browser's and passes the respective check (see `hasForeignOrigin`).
 * @param config the runtime configuration (`allowedHosts`, `platformMode`)
 */
export function requestGuard(
  config: Pick<RuntimeConfig, 'allowedHosts' | 'platformMode' | 'platformSecret'>,
): RequestGuard {
  const { allowedHosts, platformMode, platformSecret } = config;
  return function guardRequest(request, runtime) {
    if (platformSecret !== undefined) {
      const given = readRequestHeader(request, runtime, PLATFORM_SECRET_HEADER) ?? '';
      if (!constantTimeEqual(given, platformSecret))
        return new ActorError('not_from_platform', {
          detail: `This replica answers only the platform's gateway and service addresses, which send ${PLATFORM_SECRET_HEADER}`,
        });
    }
    if (allowedHosts !== undefined) {
      const host = readRequestHeader(request, runtime, 'host');
      if (host !== null && host !== '' && !allowedHosts(host)) return hostNotAllowedError(host);
    }
    if (!READ_METHODS.has(request.method) && hasForeignOrigin(request, runtime, platformMode))
      return originNotAllowedError();
    return undefined;
  };
}
