/** An IPv4 address of 127.0.0.0/8 in dotted-decimal form. */
const LOOPBACK_IPV4 = /^127\.(?:\d{1,3})\.(?:\d{1,3})\.(?:\d{1,3})$/;

/**
 * Whether a host name (lower-case, as `splitHost` gives it, or a listening address) names this
 * machine only: `localhost` and any `*.localhost` (RFC 6761 keeps them on loopback), an address
 * of 127.0.0.0/8, and `::1` (bare or in brackets). Another spelling of a loopback address
 * (`0x7f.1`, `[0:0:0:0:0:0:0:1]`) is not recognised: browsers send the canonical one.
 * @param name the host name, e.g. `localhost`, `127.0.0.1`, `[::1]`, `0.0.0.0`
 */
export function isLoopbackHostname(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost') || name === '::1' || name === '[::1]') return true;
  return LOOPBACK_IPV4.test(name) && name.split('.').every((octet) => Number(octet) <= 255);
}
