import { withoutHopByHop } from '../src/http/index.js';

/** Beside the hop-by-hop headers, both ways: `host`, which the new origin sets, and `content-length`, which the runtime sets for the body it sends on. */
const REPLACED_HEADERS: readonly string[] = ['host', 'content-length'];

/** A request ready to be sent again: its method, headers and body read once. */
export interface BufferedRequest {
  readonly method: string;
  /** The path and query, e.g. `/agent/invoke?x=1`. */
  readonly target: string;
  readonly headers: Headers;
  readonly body: ArrayBuffer | undefined;
  readonly signal: AbortSignal;
}

/**
 * Reads a request once so it can be sent to a replica, and to another one when the first cannot
 * be reached: the body is read whole (the actors' own body limit is 1 MiB by default), the
 * hop-by-hop headers dropped, and `accept-encoding: identity` asked for, so an answer passes
 * through undecoded.
 * @param request the incoming request; its origin is ignored
 */
export async function bufferRequest(request: Request): Promise<BufferedRequest> {
  const url = new URL(request.url);
  const headers = withoutHopByHop(request.headers, REPLACED_HEADERS);
  headers.set('accept-encoding', 'identity');
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
  return { method: request.method, target: `${url.pathname}${url.search}`, headers, body, signal: request.signal };
}

/**
 * Sends a buffered request to a replica and answers with its response, headers mutable, body
 * streamed. Rejects when the replica cannot be reached.
 * @param request from {@link bufferRequest}
 * @param baseUrl the replica's address, e.g. `http://127.0.0.1:41234`
 */
export async function sendTo(request: BufferedRequest, baseUrl: string): Promise<Response> {
  const answer = await fetch(new URL(request.target, baseUrl), {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    redirect: 'manual',
    signal: request.signal,
  });
  const headers = withoutHopByHop(answer.headers, REPLACED_HEADERS);
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
}
