import { withoutHopByHop } from '../src/http/index.js';

/** Beside the hop-by-hop headers, both ways: `host`, which the new origin sets, and `content-length`, which the runtime sets for the body it sends on. */
const REPLACED_HEADERS: readonly string[] = ['host', 'content-length'];

/**
 * The largest body read whole so the request can go to another replica when the first refuses
 * the connection: the actors' own default body limit (`BODY_LIMIT_BYTES`, 1 MiB). A larger body,
 * or one of unknown length, is streamed to one replica as it comes.
 */
const REPLAYABLE_BODY_BYTES = 1_048_576;

/** The header the gateway and the service addresses prove the platform's calls with (`PLATFORM_SECRET` of the replicas). */
export const PLATFORM_SECRET_HEADER = 'x-platform-secret';

/** A request ready to be sent to a replica: its method, headers and body. */
export interface OutgoingRequest {
  readonly method: string;
  /** The path and query, e.g. `/agent/invoke?x=1`. */
  readonly target: string;
  readonly headers: Headers;
  /** Read whole (may be sent again), a stream (sent once) or none. */
  readonly body: ArrayBuffer | ReadableStream<Uint8Array> | undefined;
  readonly signal: AbortSignal;
}

/** Whether the request may go to another replica after the first refused the connection: its body, if any, was read whole. */
export function canBeSentAgain(request: OutgoingRequest): boolean {
  return !(request.body instanceof ReadableStream);
}

/**
 * Prepares a request to be sent to a replica: the hop-by-hop headers (`Expect` among them)
 * dropped, `accept-encoding: identity` asked for, so an answer passes through undecoded, and the
 * body read whole when it is at most 1 MiB (so it can go to another replica when the first cannot
 * be reached), else streamed, never held: a declared `Content-Length` is passed on, so the
 * replica's own body limit answers 413 for one too large before reading it.
 * A streamed body stops being read one byte past `maxBodyBytes`: the replica then answers its
 * 413 while nothing is being written to it, so the answer is read rather than lost to a reset
 * connection.
 * @param request the incoming request; its origin is ignored
 * @param maxBodyBytes the replica's body limit (`BODY_LIMIT_BYTES`)
 */
export async function outgoingRequest(request: Request, maxBodyBytes = Infinity): Promise<OutgoingRequest> {
  const url = new URL(request.url);
  const headers = withoutHopByHop(request.headers, REPLACED_HEADERS);
  headers.set('accept-encoding', 'identity');
  const target = `${url.pathname}${url.search}`;
  const base = { method: request.method, target, headers, signal: request.signal };
  if (request.method === 'GET' || request.method === 'HEAD' || request.body === null)
    return { ...base, body: undefined };
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) <= REPLAYABLE_BODY_BYTES)
    return { ...base, body: await request.arrayBuffer() };
  if (declared !== null) {
    // Sent on as declared, so the replica's body limit refuses an oversized body before reading it.
    headers.set('content-length', declared);
    return { ...base, body: stalledPast(request.body, maxBodyBytes) };
  }
  const head = await headOfStream(request.body, REPLAYABLE_BODY_BYTES);
  return { ...base, body: head instanceof ReadableStream ? stalledPast(head, maxBodyBytes) : head };
}

/**
 * A copy of `body` that passes its chunks on until more than `maxBytes` went through, then
 * waits, reading no more, until it is cancelled.
 * @param body the stream to pass on
 * @param maxBytes how much may pass before it stalls
 */
function stalledPast(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let passed = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (passed > maxBytes) return new Promise<void>(() => undefined);
      const { done, value } = await reader.read();
      if (done) return controller.close();
      passed += value.byteLength;
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * A body of unknown length read up to `maxBytes`: whole when it ends by then, else a stream of
 * what was read followed by the rest, unread.
 * @param body the request's body
 * @param maxBytes how much is read before giving up on holding it whole
 */
async function headOfStream(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<ArrayBuffer | ReadableStream<Uint8Array>> {
  const reader = body.getReader();
  const head: Uint8Array[] = [];
  let size = 0;
  while (size <= maxBytes) {
    const { done, value } = await reader.read();
    if (done) return new Blob(head as BlobPart[]).arrayBuffer();
    head.push(value);
    size += value.byteLength;
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = head.shift();
      if (next !== undefined) return controller.enqueue(next);
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * Sends a request to a replica and answers with its response, headers mutable, body streamed.
 * Rejects when the replica cannot be reached.
 * @param request from {@link outgoingRequest}
 * @param baseUrl the replica's address, e.g. `http://127.0.0.1:41234`
 * @param platformSecret the run's secret, sent in {@link PLATFORM_SECRET_HEADER}
 */
export async function sendTo(request: OutgoingRequest, baseUrl: string, platformSecret?: string): Promise<Response> {
  const headers = new Headers(request.headers);
  if (platformSecret !== undefined) headers.set(PLATFORM_SECRET_HEADER, platformSecret);
  const answer = await fetch(new URL(request.target, baseUrl), {
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body: request.body, duplex: 'half' }),
    redirect: 'manual',
    signal: request.signal,
  } as RequestInit);
  const answered = withoutHopByHop(answer.headers, REPLACED_HEADERS);
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: answered });
}
