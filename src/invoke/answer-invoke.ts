import * as v from 'valibot';
import { ChatReply } from './chat-reply.js';
import type { ChatRequest } from './chat-request.js';
import { decideIdempotency, runIdempotent } from './idempotency.js';
import { runTurn } from './run-turn.js';
import { streamReplay, streamTurn } from './stream-turn.js';
import type { TurnServices } from './turn-services.js';

/** One validated invoke, with what its HTTP request said around the body. */
export interface InvokeCall {
  readonly request: ChatRequest;
  readonly tenantId: string;
  readonly requestId: string;
  /** Answer as a UI message stream (see `wantsStream`). */
  readonly stream: boolean;
  /** The `Idempotency-Key` header, undefined when absent. */
  readonly idempotencyKey: string | undefined;
  /** The HTTP request's signal: aborted when the client goes away. */
  readonly requestSignal: AbortSignal;
  /** Keeps the request in flight past its response headers, until the returned function is called: a stream calls it when it ends. */
  readonly keepInFlight: () => () => void;
}

/** How to answer an invoke: a reply, a stored reply replayed as JSON, or a UI message stream. */
export type InvokeAnswer =
  | { readonly kind: 'reply'; readonly reply: ChatReply }
  | { readonly kind: 'replay'; readonly status: number; readonly body: string }
  | { readonly kind: 'stream'; readonly body: ReadableStream<Uint8Array>; readonly replayed: boolean };

/**
 * Answers one invoke: applies `Idempotency-Key` once around the turn (a completed retry is
 * replayed, counted as `replayed`), then runs the turn as JSON or as a stream.
 */
export async function answerInvoke(services: TurnServices, call: InvokeCall): Promise<InvokeAnswer> {
  const { request, tenantId, requestId, stream } = call;
  const decided = decideIdempotency(services, call.idempotencyKey, tenantId, request);
  // Awaited only when it is a promise (a key was sent): an `await` of a value is one more hop.
  const idempotency = decided instanceof Promise ? await decided : decided;
  if (idempotency.kind === 'replay') {
    services.metrics.invocations.inc({ outcome: 'replayed' });
    if (!stream) return { kind: 'replay', status: idempotency.status, body: idempotency.body };
    return { kind: 'stream', body: streamReplay(v.parse(ChatReply, JSON.parse(idempotency.body))), replayed: true };
  }
  const turn = {
    request,
    tenantId,
    requestId,
    stream,
    messageId: `msg_${crypto.randomUUID()}`,
    idempotencyUnavailable: idempotency.kind === 'run' && idempotency.unavailable,
  };
  if (stream) {
    return {
      kind: 'stream',
      body: streamTurn(services, {
        ...turn,
        requestSignal: call.requestSignal,
        idempotency,
        leave: call.keepInFlight(),
      }),
      replayed: false,
    };
  }
  const abort = services.lifecycle.linkWork(call.requestSignal);
  try {
    return {
      kind: 'reply',
      reply: await runIdempotent(idempotency, (claim) => runTurn(services, { ...turn, signal: abort.signal, claim })),
    };
  } finally {
    abort.dispose();
  }
}
