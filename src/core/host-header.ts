import { rememberingLastAccepted } from './remembering-last-accepted.js';
import { ActorError } from './actor-error.js';

/**
 * A `Host` value that names a host and nothing else: a DNS name or IPv4 address
 * (`[A-Za-z0-9._~-]`) or a bracketed IPv6 address, with an optional port. Anything else —
 * `/ ? # @ \`, spaces, percent signs, bytes above ASCII — could end up in the path of the URL
 * a runtime builds from it.
 */
const PLAIN_HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/** A plain host that also makes a valid URL; remembered, as `URL.canParse` costs a few µs and the value rarely changes. */
const isPlainHost = rememberingLastAccepted((host) => PLAIN_HOST.test(host) && URL.canParse(`http://${host}/`));

/**
 * Whether a request's `Host` header is one the actor accepts: absent or empty (HTTP/1.0, or
 * a target without authority), or a plain host with an optional port that also makes a valid
 * URL (a port up to 65535, a well-formed IPv4 or IPv6 address). Runtimes build the request URL
 * from `Host` — Bun and Deno even when no URL parser accepts it — so a value with path
 * characters could change the route and one no URL parser accepts would fail every route that
 * reads the URL; such a request gets `invalidHostError` instead.
 * @param host the header's value, null when the request has none
 */
export function isAcceptableHost(host: string | null): boolean {
  return host === null || host === '' || isPlainHost(host);
}

/** The 400 problem of a request whose `Host` header is not a plain host (see `isAcceptableHost`). */
export function invalidHostError(): ActorError {
  return new ActorError('invalid_host', {
    detail: 'The Host header must be a host name or address with an optional port from 0 to 65535',
  });
}

/**
 * The host name of a plain `Host` value (see `isAcceptableHost`) and its port: the name
 * lower-cased, without a trailing dot, an IPv6 address in its brackets; the port '' when none.
 * @param host a plain `Host` value, e.g. `Actor.Example.:8080` or `[::1]:80`
 */
export function splitHost(host: string): { readonly name: string; readonly port: string } {
  const close = host.startsWith('[') ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', close);
  const name = (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
  return { name: name.endsWith('.') ? name.slice(0, -1) : name, port: colon === -1 ? '' : host.slice(colon + 1) };
}
