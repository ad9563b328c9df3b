import { withoutHopByHop } from '../../src/http/index.js';
import { MESH_KEY_HEADER } from '../../src/index.js';
import { PLATFORM_SECRET_HEADER } from '../forward-request.js';
import { EDGE_KEY_HEADER } from './edge-keys.js';

/**
 * Headers of a client's request, beside the hop-by-hop ones, that never reach a replica: `Host`,
 * the caller's credentials (the edge key, the owner token or cookie: the platform is the
 * authorisation boundary and a pod runs without auth), the mesh key (peer reads are the mesh's,
 * never the edge's), a guess at the run's secret (the pool sends the real one), and everything the gateway itself decides (tenant, forwarding facts).
 */
const CALLER_HEADERS: readonly string[] = [
  'host',
  'authorization',
  'cookie',
  EDGE_KEY_HEADER,
  MESH_KEY_HEADER,
  PLATFORM_SECRET_HEADER,
  'x-tenant-id',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-prefix',
];

/** What the gateway says to the replica about a forwarded request. */
export interface ForwardFacts {
  /** The actor's own path and query, e.g. `/agent/invoke`. */
  readonly actorPath: string;
  /** The tenant the request is made for: sent as `X-Tenant-Id`, whatever the client sent. */
  readonly tenant: string;
  /** The path prefix the client addressed the actor under (`X-Forwarded-Prefix`), e.g. `/relay/<ref>`. */
  readonly prefix: string;
  /** The request id, sent as `X-Request-Id` so the replica's log lines carry the gateway's. */
  readonly requestId: string;
  /** The body to send instead of the client's (when the gateway had to read it). */
  readonly body?: string;
}

/**
 * The request a replica gets for a client's request: the actor's own path (on a placeholder
 * origin the pool replaces), the client's method, headers minus the hop-by-hop ones and
 * `CALLER_HEADERS`, the
 * gateway's `X-Tenant-Id`, `X-Request-Id` and `X-Forwarded-Host`/`-Proto`/`-Prefix` (an actor on
 * the platform path trusts them for its origin checks), and the body as a stream, unread.
 * @param request the client's request
 * @param facts where it goes and for whom
 */
export function forwardedRequest(request: Request, facts: ForwardFacts): Request {
  const url = new URL(request.url);
  const headers = withoutHopByHop(request.headers, CALLER_HEADERS);
  headers.set('X-Tenant-Id', facts.tenant);
  headers.set('X-Request-Id', facts.requestId);
  headers.set('X-Forwarded-Host', request.headers.get('host') ?? url.host);
  headers.set('X-Forwarded-Proto', url.protocol.replace(':', ''));
  headers.set('X-Forwarded-Prefix', facts.prefix);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  if (facts.body !== undefined) headers.delete('content-length');
  return new Request(new URL(facts.actorPath, 'http://replica.invalid'), {
    method: request.method,
    headers,
    signal: request.signal,
    ...(hasBody ? { body: facts.body ?? request.body, duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * The client's copy of a replica's answer: its status, headers (minus hop-by-hop ones) and the
 * body as the same stream, so an SSE reply reaches the client chunk by chunk.
 * @param answer the replica's response
 * @param body the body to send instead (a counting copy of the stream)
 */
export function relayedResponse(answer: Response, body: ReadableStream<Uint8Array> | null = answer.body): Response {
  const headers = withoutHopByHop(answer.headers);
  return new Response(body, { status: answer.status, statusText: answer.statusText, headers });
}
