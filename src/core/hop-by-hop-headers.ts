/**
 * Hop-by-hop headers (RFC 9110 §7.6.1 and the common non-standard ones): they describe one
 * connection, never the message. `Expect` is among them for a proxy: the hop that received it
 * answered `100 Continue` itself, and Node's `fetch` refuses to send it on.
 */
const HOP_BY_HOP_HEADERS: readonly string[] = [
  'connection',
  'expect',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/**
 * The names (lower case) that belong to one connection of a message: the standard hop-by-hop
 * headers and every header its `Connection` header names.
 * @param connection the message's `Connection` header, if any
 */
export function connectionScopedHeaders(connection: string | null | undefined): Set<string> {
  const names = new Set(HOP_BY_HOP_HEADERS);
  for (const token of (connection ?? '').split(',')) {
    const name = token.trim().toLowerCase();
    if (name !== '') names.add(name);
  }
  return names;
}

/**
 * A copy of `headers` for the next hop of a proxy: without the headers of this connection
 * ({@link connectionScopedHeaders}) and without `extra` (names in any case).
 * @param headers the headers one hop received
 * @param extra more names the proxy does not pass on (its own credentials, `Host`, …)
 */
export function withoutHopByHop(headers: Headers, extra: readonly string[] = []): Headers {
  const drop = connectionScopedHeaders(headers.get('connection'));
  for (const name of extra) drop.add(name.toLowerCase());
  const kept = new Headers();
  for (const [name, value] of headers) if (!drop.has(name)) kept.append(name, value);
  return kept;
}
