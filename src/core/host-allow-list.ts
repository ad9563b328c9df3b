import { splitHost } from './host-header.js';
import { isLoopbackHostname } from './loopback-host.js';
import { rememberingLastAccepted } from './remembering-last-accepted.js';

/** Whether a request's `Host` value is one the actor serves; see `hostAllowList`. */
export type HostAllowList = (host: string) => boolean;

/**
 * The `Host` values an actor answers when it guards against DNS rebinding: every loopback name
 * and address (see `isLoopbackHostname`) on any port, and each entry of `entries` — a name alone
 * matches it on any port, a name with a port on that port only. Names compare case-insensitively
 * and without a trailing dot.
 * @param entries plain hosts with optional ports, e.g. `actor.example`, `10.0.0.5:8080`, `[fd00::1]`
 * @example
 * const allows = hostAllowList(['actor.example']);
 * allows('actor.example:8080'); // true
 */
export function hostAllowList(entries: readonly string[]): HostAllowList {
  const anyPort = new Set<string>();
  const onPort = new Set<string>();
  for (const entry of entries) {
    const { name, port } = splitHost(entry);
    if (port === '') anyPort.add(name);
    else onPort.add(`${name}:${Number(port)}`);
  }
  return rememberingLastAccepted(function allowsHost(host) {
    const { name, port } = splitHost(host);
    return isLoopbackHostname(name) || anyPort.has(name) || (port !== '' && onPort.has(`${name}:${Number(port)}`));
  });
}
