import { ActorError } from './actor-error.js';

/**
 * A `Host` value that names a host and nothing else: a DNS name or IPv4 address
 * (`[A-Za-z0-9._~-]`) or a bracketed IPv6 address, with an optional port. Anything else —
 * `/ ? # @ \`, spaces, percent signs, bytes above ASCII — could end up in the path of the URL
 * a runtime builds from it.
 */
const PLAIN_HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * Whether a request's `Host` header is one the actor accepts: absent or empty (HTTP/1.0, or
 * a target without authority), or a plain host with an optional port. Runtimes build the
 * request URL from `Host`, so a value with path characters could change the route; such a
 * request gets `invalidHostError` instead.
 * @param host the header's value, null when the request has none
 */
export function isAcceptableHost(host: string | null): boolean {
  return host === null || host === '' || PLAIN_HOST.test(host);
}

/** The 400 problem of a request whose `Host` header is not a plain host (see `isAcceptableHost`). */
export function invalidHostError(): ActorError {
  return new ActorError(400, 'invalid_host', 'Invalid Host header', { detail: 'The Host header must be a host name or address with an optional port' });
}
