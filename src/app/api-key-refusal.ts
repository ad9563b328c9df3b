import { ActorError } from '../core/actor-error.js';
import { checkHeaderKey } from '../core/header-key.js';
import { readRequestHeader, type RuntimeBindings } from '../core/runtime-bindings.js';

/** Options of `apiKeyRefusal`. */
export interface ApiKeyRefusalOptions {
  /** Accepted keys; several allow rotation. Must not be empty. */
  readonly keys: readonly string[];
  /** Exact paths that need no key (matched on the request's normalised path, case-sensitive); none by default. */
  readonly publicPaths?: readonly string[];
  /** The header carrying the key. */
  readonly headerName?: string;
}

/** The 401 of a request without a valid key, or undefined to let it through (see `apiKeyRefusal`). */
export type ApiKeyRefusal = (
  request: Request,
  runtime: RuntimeBindings | undefined,
  routedPath: string,
) => ActorError | undefined;

/**
 * API-key authentication (`X-API-Key`), decided at the fetch edge (`observeRequests`): a missing
 * or wrong key gets a 401 problem with `WWW-Authenticate`; only the exact public paths pass
 * without one. The path that counts is the WHATWG-normalised pathname of the raw URL, with dot
 * segments resolved and percent-encoding left as sent, so `/%68ealth`, `/HEALTH`, `/health/`
 * and `//health` are not `/health`. The routed path (Hono's, percent-decoded) serves as a quick
 * first look: a public path holds no `%`, so one the router does not see as public is not.
 * @param options the keys, the public paths and the header
 * @returns the decision for one request, given the path Hono routes it on
 */
export function apiKeyRefusal(options: ApiKeyRefusalOptions): ApiKeyRefusal {
  if (options.keys.length === 0 || options.keys.some((key) => key.length === 0)) {
    throw new Error('apiKeyRefusal needs at least one non-empty key');
  }
  const { keys, publicPaths = [], headerName = 'X-API-Key' } = options;
  const open = new Set(publicPaths);
  const headerKey = headerName.toLowerCase();
  const challenge = { 'WWW-Authenticate': `ApiKey header="${headerName}"` };
  const isPublic = (url: string, routedPath: string) =>
    open.has(routedPath) && (!url.includes('%') || open.has(new URL(url).pathname));
  return function refuseWithoutKey(request, runtime, routedPath) {
    if (isPublic(request.url, routedPath)) return undefined;
    const check = checkHeaderKey(readRequestHeader(request, runtime, headerKey) ?? undefined, keys);
    if (check === 'missing')
      return new ActorError('missing_api_key', {
        detail: `Send your key in the ${headerName} header`,
        headers: challenge,
      });
    if (check === 'invalid')
      return new ActorError('invalid_api_key', {
        detail: `The ${headerName} header does not hold a valid key`,
        headers: challenge,
      });
    return undefined;
  };
}
