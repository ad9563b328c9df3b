import { networkInterfaces } from 'node:os';

/** Addresses that mean every interface: IPv4's, IPv6's (which on most systems takes IPv4 too). */
const WILDCARDS: Readonly<Record<string, readonly ('IPv4' | 'IPv6')[]>> = {
  '0.0.0.0': ['IPv4'],
  '::': ['IPv4', 'IPv6'],
  '[::]': ['IPv4', 'IPv6'],
};

/** `http://<address>:<port>/`, with an IPv6 address in brackets. */
function baseUrl(address: string, port: number): string {
  return `http://${address.includes(':') && !address.startsWith('[') ? `[${address}]` : address}:${port}/`;
}

/**
 * The base URLs a server listening on `host:port` answers: one per address of this machine's
 * interfaces when `host` is a wildcard (`0.0.0.0`, `::`), else `host`'s own. Loopback first.
 * @param host the listening address, e.g. `127.0.0.1`, `0.0.0.0`, `192.168.1.5`
 * @param port the port bound
 * @example
 * servedBaseUrls('0.0.0.0', 3000); // ['http://127.0.0.1:3000/', 'http://192.168.1.5:3000/']
 */
export function servedBaseUrls(host: string, port: number): string[] {
  const families = WILDCARDS[host];
  if (families === undefined) return [baseUrl(host, port)];
  const entries = Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined && families.includes(entry.family));
  const ordered = [...entries.filter((entry) => entry!.internal), ...entries.filter((entry) => !entry!.internal)];
  return ordered.map((entry) => baseUrl(entry!.address, port));
}
