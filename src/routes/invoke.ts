import { Hono } from 'hono';
import * as v from 'valibot';
import { ChatReply } from '../agent/chat-reply.js';
import { ChatRequest } from '../agent/chat-request.js';
import { DEFAULT_TENANT, parseTenantId, tenantIdIssue } from '../core/tenant-id.js';
import { linkAbort } from '../core/linked-abort.js';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';
import { ActorError } from '../core/actor-error.js';
import { readJsonBody } from '../core/read-json-body.js';
import { decideIdempotency } from './idempotency.js';
import { streamInvoke, streamReplay } from './invoke-stream.js';
import { runInvokeTurn } from './invoke-turn.js';
import { UI_MESSAGE_STREAM_HEADERS } from './ui-message-stream.js';

/** The tenant of a request: `X-Tenant-Id` (set by the platform), else `metadata.tenant_id`, else `default`. */
function resolveTenant(header: string | undefined, request: ChatRequest): string {
  if (header !== undefined) {
    const issue = tenantIdIssue(header);
    if (issue !== undefined) throw new ActorError(400, 'invalid_header', 'Invalid header', { detail: `X-Tenant-Id ${issue}` });
    return header;
  }
  const fromMetadata = request.metadata?.tenant_id;
  return fromMetadata === undefined ? DEFAULT_TENANT : parseTenantId(fromMetadata, '/metadata/tenant_id');
}

function refuseWhenNotServing(ctx: ActorContext): void {
  const phase = ctx.lifecycle.phase;
  if (phase === 'ready') return;
  if (phase === 'starting') throw new ActorError(503, 'starting', 'The actor is starting', { detail: 'Try again in a moment', headers: { 'Retry-After': '1' } });
  throw new ActorError(503, 'draining', 'The actor is shutting down', { detail: 'Send the request to another replica', headers: { 'Retry-After': '1', Connection: 'close' } });
}

/** True when the caller asks for the UI message stream: `"stream": true` or `Accept: text/event-stream`. */
function wantsStream(request: ChatRequest, accept: string | undefined): boolean {
  if (request.stream !== undefined) return request.stream;
  return accept !== undefined && accept.split(',').some((type) => type.split(';', 1)[0]!.trim().toLowerCase() === 'text/event-stream');
}

/**
 * `POST /agent/invoke`: validates the chat request, applies `Idempotency-Key`, runs the chat
 * handler and answers with the chat reply as JSON or as an AI SDK UI message stream.
 */
export function invokeRoutes(ctx: ActorContext): Hono<ActorEnv> {
  return new Hono<ActorEnv>().post('/agent/invoke', async function invoke(c) {
    refuseWhenNotServing(ctx);
    const request = await readJsonBody(c.req.raw, ChatRequest);
    const tenantId = resolveTenant(c.req.header('X-Tenant-Id'), request);
    const stream = wantsStream(request, c.req.header('Accept'));
    const idempotency = await decideIdempotency(ctx, c.req.header('Idempotency-Key'), tenantId, request);
    if (idempotency.kind === 'replay') {
      ctx.metrics.invocations.inc({ outcome: 'replayed' });
      c.header('Idempotent-Replayed', 'true');
      if (!stream) return c.body(idempotency.body, idempotency.status as 200, { 'Content-Type': 'application/json' });
      return c.body(streamReplay(v.parse(ChatReply, JSON.parse(idempotency.body))), 200, UI_MESSAGE_STREAM_HEADERS);
    }
    const turn = {
      request,
      tenantId,
      requestId: c.env.requestId,
      messageId: `msg_${crypto.randomUUID()}`,
      ...(idempotency.kind === 'run' && idempotency.unavailable ? { metadata: { idempotency_unavailable: true } } : {}),
    };
    if (stream) return c.body(streamInvoke(ctx, { ...turn, requestSignal: c.req.raw.signal, idempotency }), 200, UI_MESSAGE_STREAM_HEADERS);
    const abort = linkAbort(c.req.raw.signal, ctx.lifecycle.shutdownSignal);
    try {
      const reply = await runInvokeTurn(ctx, { ...turn, signal: abort.signal });
      if (idempotency.kind === 'claimed') await idempotency.complete(reply);
      return c.json(reply);
    } catch (error) {
      if (idempotency.kind === 'claimed') await idempotency.release();
      throw error;
    } finally {
      abort.dispose();
    }
  });
}
