import { Hono } from 'hono';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';
import { readJsonBody } from '../core/read-json-body.js';
import { answerInvoke } from '../invoke/answer-invoke.js';
import { ChatRequest } from '../invoke/chat-request.js';
import { refuseWhenNotServing } from '../invoke/refuse-when-not-serving.js';
import { requestTenant } from '../invoke/request-tenant.js';
import { UI_MESSAGE_STREAM_HEADERS } from '../invoke/ui-message-stream.js';
import { wantsStream } from '../invoke/wants-stream.js';

/**
 * `POST /agent/invoke`: the HTTP side of a turn. Reads and validates the chat request, hands it
 * to `answerInvoke` with the headers that matter, and sends the answer as JSON or as an AI SDK
 * UI message stream.
 */
export function invokeRoutes(ctx: ActorContext): Hono<ActorEnv> {
  return new Hono<ActorEnv>().post('/agent/invoke', async function invoke(c) {
    refuseWhenNotServing(ctx.lifecycle);
    const request = await readJsonBody(c.req.raw, ChatRequest);
    const answer = await answerInvoke(ctx, {
      request,
      tenantId: requestTenant(c.req.header('X-Tenant-Id'), request),
      requestId: c.env.requestId,
      stream: wantsStream(request, c.req.header('Accept')),
      idempotencyKey: c.req.header('Idempotency-Key'),
      requestSignal: c.req.raw.signal,
      keepInFlight: c.env.keepInFlight,
    });
    if (answer.kind === 'reply') return c.json(answer.reply);
    if (answer.kind === 'replay' || answer.replayed) c.header('Idempotent-Replayed', 'true');
    if (answer.kind === 'replay') return c.body(answer.body, answer.status as 200, { 'Content-Type': 'application/json' });
    return c.body(answer.body, 200, UI_MESSAGE_STREAM_HEADERS);
  });
}
