import type { MiddlewareHandler } from 'hono';
import { ActorError } from '../../core/actor-error.js';
import { checkHeaderKey } from '../../core/header-key.js';

/** Options of `apiKeyAuth`. */
export interface ApiKeyAuthOptions {
  /** Accepted keys; several allow rotation. Must not be empty. */
  readonly keys: readonly string[];
  /** Exact paths that need no key (matched on the request's normalised path, case-sensitive); none by default. */
  readonly publicPaths?: readonly string[];
  /** The header carrying the key. */
  readonly headerName?: string;
}

/**
 * The path a request really asks for: the WHATWG-normalised pathname of the raw URL, with
 * dot segments resolved and percent-encoding left as sent. `/%68ealth`, `/HEALTH`,
 * `/health/` and `//health` are therefore not `/health`.
 */
function normalisedPath(url: string): string {
  return new URL(url).pathname;
}

/**
 * API-key authentication (`X-API-Key`): a missing or wrong key gets a 401 problem with
 * `WWW-Authenticate`; only the exact public paths pass without one.
 * @example
 * app.use(apiKeyAuth({ keys: ['k1', 'k2'] }));
 */
export function apiKeyAuth(options: ApiKeyAuthOptions): MiddlewareHandler {
  if (options.keys.length === 0 || options.keys.some((key) => key.length === 0)) {
    throw new Error('apiKeyAuth needs at least one non-empty key');
  }
  const settings = { publicPaths: [], headerName: 'X-API-Key', ...options } satisfies ApiKeyAuthOptions;
  const publicPaths = new Set(settings.publicPaths);
  const challenge = { 'WWW-Authenticate': `ApiKey header="${settings.headerName}"` };
  return async function apiKeyAuthMiddleware(c, next) {
    if (publicPaths.has(normalisedPath(c.req.url))) return next();
    const check = checkHeaderKey(c.req.header(settings.headerName), settings.keys);
    if (check === 'missing') {
      throw new ActorError('missing_api_key', { detail: `Send your key in the ${settings.headerName} header`, headers: challenge });
    }
    if (check === 'invalid') throw new ActorError('invalid_api_key', { detail: `The ${settings.headerName} header does not hold a valid key`, headers: challenge });
    return next();
  };
}
