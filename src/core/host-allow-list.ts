import { splitHost } from './host-header.js';
import { isLoopbackHostname } from './loopback-host.js';

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
  // The last host it allowed: a server hears the same `Host` on almost every request.
  let lastAllowed = '';
  return function allowsHost(host) {
    if (host === lastAllowed) return true;
    const { name, port } = splitHost(host);
    const allowed = isLoopbackHostname(name) || anyPort.has(name) || (port !== '' && onPort.has(`${name}:${Number(port)}`));
    if (allowed) lastAllowed = host;
    return allowed;
  };
}
