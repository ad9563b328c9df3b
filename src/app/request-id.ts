import { readRequestHeader, type RuntimeBindings } from '../core/runtime-bindings.js';

/** Longest caller `X-Request-Id` echoed back; a longer one is replaced. */
const REQUEST_ID_MAX_LENGTH = 128;

const SANE_ID = /^[\w=-]+$/;

/**
 * The id of a request: the caller's `X-Request-Id` when it is 1–128 characters of
 * `[A-Za-z0-9_=-]`, a new UUID otherwise.
 * @param request the incoming request
 * @param runtime what the runtime's adapter passed to `fetch` next to it
 */
export function requestIdFor(request: Request, runtime: RuntimeBindings | undefined): string {
  const given = readRequestHeader(request, runtime, 'x-request-id');
  return given !== null && given.length <= REQUEST_ID_MAX_LENGTH && SANE_ID.test(given) ? given : crypto.randomUUID();
}
