import { withoutHopByHop } from '../../core/hop-by-hop-headers.js';

/** The actor's own credentials: they authenticate the caller to the actor and must not reach the upstream. */
const ACTOR_CREDENTIAL_HEADERS: readonly string[] = ['x-api-key', 'x-mesh-key'];

/** How this hop describes the request to the upstream in `X-Forwarded-*`. */
export interface ForwardedHop {
  /** The address of the client of this hop, when the runtime tells it. */
  readonly clientAddress: string | undefined;
  /** `http` or `https`, as this hop received the request. */
  readonly proto: string;
  /** The `Host` this hop received. */
  readonly host: string;
  /** The path prefix this hop strips, e.g. `/workflow`. */
  readonly prefix: string;
  /** Keep and extend the `X-Forwarded-*` / `Forwarded` headers the caller sent (only behind a trusted relay). */
  readonly trustIncoming: boolean;
  readonly requestId: string;
}

/**
 * The headers a proxied request carries upstream: hop-by-hop headers, `Host`, `Expect` and the
 * actor's own credentials dropped (the server of this hop answers `Expect: 100-continue` itself,
 * and the Fetch API refuses to send `Expect`); `X-Forwarded-For/Proto/Host/Prefix` and `X-Request-Id` set. The body is
 * asked for uncompressed, because the Fetch API decodes compressed bodies on its own.
 * @param incoming the headers the actor received
 * @param hop what this hop knows about the request
 */
export function proxyRequestHeaders(incoming: Headers, hop: ForwardedHop): Headers {
  const forwardedNames = [
    'forwarded',
    'x-forwarded-for',
    'x-forwarded-proto',
    'x-forwarded-host',
    'x-forwarded-prefix',
  ];
  const headers = withoutHopByHop(incoming, [
    'host',
    'expect',
    'accept-encoding',
    'x-request-id',
    ...ACTOR_CREDENTIAL_HEADERS,
    ...forwardedNames,
  ]);
  const previous = (name: string) => (hop.trustIncoming ? incoming.get(name)?.trim() || undefined : undefined);
  const chain = [previous('x-forwarded-for'), hop.clientAddress].filter(
    (part): part is string => part !== undefined && part !== '',
  );
  if (chain.length > 0) headers.set('X-Forwarded-For', chain.join(', '));
  const forwarded = previous('forwarded');
  if (forwarded !== undefined) headers.set('Forwarded', forwarded);
  headers.set('X-Forwarded-Proto', previous('x-forwarded-proto') ?? hop.proto);
  headers.set('X-Forwarded-Host', previous('x-forwarded-host') ?? hop.host);
  headers.set('X-Forwarded-Prefix', `${(previous('x-forwarded-prefix') ?? '').replace(/\/+$/, '')}${hop.prefix}`);
  headers.set('X-Request-Id', hop.requestId);
  headers.set('Accept-Encoding', 'identity');
  return headers;
}

/**
 * The headers a proxied response carries back: hop-by-hop headers dropped, and `Content-Encoding`
 * with `Content-Length` dropped when the Fetch API already decoded the body. A `Location` inside
 * the upstream is rewritten to the public prefix.
 * @param upstream the upstream response's headers
 * @param base the upstream base URL (ends with `/`)
 * @param publicPrefix the path the client reaches the upstream base under, e.g. `/workflow`
 */
export function proxyResponseHeaders(upstream: Headers, base: URL, publicPrefix: string): Headers {
  const headers = withoutHopByHop(
    upstream,
    upstream.has('content-encoding') ? ['content-encoding', 'content-length'] : [],
  );
  const location = headers.get('location');
  if (location?.startsWith(base.href)) headers.set('Location', `${publicPrefix}/${location.slice(base.href.length)}`);
  return headers;
}
