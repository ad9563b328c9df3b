import { TenantId } from '../core/tenant-id.js';
import { answerInvoke } from '../invoke/answer-invoke.js';
import { ChatReply } from '../invoke/chat-reply.js';
import { ChatRequest } from '../invoke/chat-request.js';
import { IdempotencyKey } from '../invoke/idempotency.js';
import { readInvokeBody } from '../invoke/read-invoke-body.js';
import { refuseWhenNotServing } from '../invoke/refuse-when-not-serving.js';
import { requestTenant } from '../invoke/request-tenant.js';
import { UiChatRequest } from '../invoke/ui-chat-request.js';
import { UI_MESSAGE_STREAM_HEADERS } from '../invoke/ui-message-stream.js';
import { wantsStream } from '../invoke/wants-stream.js';
import { defineRoute } from './actor-route.js';
import { problem, schemaOf } from './openapi-parts.js';

/**
 * `POST /agent/invoke`: the HTTP side of a turn. Reads and validates the chat request (or the AI
 * SDK's chat body, read as one), hands it
 * to `answerInvoke` with the headers that matter, and sends the answer as JSON or as an AI SDK
 * UI message stream.
 */
export const invokeRoute = defineRoute(
  {
    method: 'post',
    path: '/agent/invoke',
    security: 'apiKey',
    bodyLimit: true,
    contract: 'required',
    operation: {
      operationId: 'invoke',
      summary: 'Chat with the actor',
      parameters: [
        {
          name: 'X-Tenant-Id',
          in: 'header',
          required: false,
          description: 'The tenant (set by the platform); else metadata.tenant_id, else `default`',
          schema: schemaOf(TenantId),
        },
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'A retry with the same key and body replays the stored reply',
          schema: schemaOf(IdempotencyKey),
        },
      ],
      requestBody: {
        required: true,
        description:
          "A chat request, or the body of the AI SDK's `DefaultChatTransport` (`useChat`), told apart by `messages`",
        content: {
          'application/json': {
            schema: { oneOf: [schemaOf(ChatRequest), schemaOf(UiChatRequest)] },
            examples: {
              chat: {
                summary: 'A chat request',
                value: { user_identifier: 'user-1', session_id: 'session-1', message: 'Hello' },
              },
              useChat: {
                summary: "The AI SDK's body (useChat), answered as a stream",
                value: {
                  id: 'chat-1',
                  trigger: 'submit-message',
                  messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }],
                },
              },
            },
          },
        },
      },
      responses: {
        200: {
          description:
            "The reply as JSON; an SSE stream (AI SDK UI message stream) when the body says `stream: true`, or Accept prefers text/event-stream, or the body is the AI SDK's (unless it says `stream: false`)",
          headers: {
            'Idempotent-Replayed': {
              description: '`true` when this is the stored reply of an earlier request with the same Idempotency-Key',
              schema: { type: 'string', enum: ['true'] },
            },
          },
          content: {
            'application/json': { schema: schemaOf(ChatReply) },
            'text/event-stream': {
              schema: {
                type: 'string',
                description:
                  'Server-sent events: one `data:` line per AI SDK UI message stream part (JSON), ending with `data: [DONE]`',
              },
            },
          },
        },
        400: problem('Malformed JSON, or a malformed X-Tenant-Id or Idempotency-Key', [
          'invalid_json',
          'invalid_header',
        ]),
        409: problem('Idempotency-Key in use by a running request', ['idempotency_key_in_use']),
        413: problem('Body over BODY_LIMIT_BYTES', ['payload_too_large']),
        415: problem('Not JSON', ['unsupported_media_type']),
        422: problem('Invalid fields, or an Idempotency-Key reused with another body', [
          'validation_failed',
          'idempotency_key_reused',
        ]),
        499: problem('Client closed the request', ['client_closed_request']),
        500: problem('The agent is misconfigured', ['agent_misconfigured']),
        502: problem('Model error', ['model_error']),
        503: problem('Starting or draining', ['starting', 'draining']),
        504: problem('Model time-out', ['model_timeout']),
      },
    },
  },
  (ctx) =>
    async function invoke(c) {
      refuseWhenNotServing(ctx.lifecycle);
      const request = await readInvokeBody(c.req.raw);
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
      if (answer.kind === 'replay')
        return c.body(answer.body, answer.status as 200, { 'Content-Type': 'application/json' });
      return c.body(answer.body, 200, UI_MESSAGE_STREAM_HEADERS);
    },
);
