import { acceptNames } from '../../core/accept-names.js';
import { refuseWhenNotServing } from '../../core/actor-lifecycle.js';
import { readJson, validBody } from '../../core/read-json-body.js';
import { answerInvoke } from '../../invoke/answer-invoke.js';
import { ChatReply } from '../../invoke/chat-reply.js';
import { ApprovalsRequest, ChatRequest, INVOKE_PATH, requestTenant } from '../../invoke/chat-request.js';
import { approvalsOfUiChat, chatRequestOfUiChat, UI_CHAT_USER } from '../../invoke/chat-request-of-ui-chat.js';
import type { Mutable } from '../../core/mutable.js';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyKey } from '../../invoke/idempotency.js';
import { RUNS_PATH, RunStatus } from '../../invoke/turn-runs.js';
import { UiChatRequest } from '../../invoke/ui-chat-request.js';
import { UI_MESSAGE_STREAM_HEADERS } from '../../invoke/ui-message-stream.js';
import { defineRoute } from '../../route-kit/actor-route.js';
import { eventStream, problem, schemaOf, TYPED_EVENT, tenantHeader } from '../../route-kit/openapi-parts.js';

/** The path of the invoke, for the code above this feature that sends to it. */
export { INVOKE_PATH };

/** Whether a body is the AI SDK's (`messages`, no `message`) rather than a chat request. */
function isUiChatBody(json: unknown): boolean {
  return (
    typeof json === 'object' && json !== null && !Array.isArray(json) && 'messages' in json && !('message' in json)
  );
}

/**
 * Reads the body as a chat request: a chat request as sent, or the AI SDK's chat body
 * (`useChat`'s `DefaultChatTransport`), told apart by `messages`. 415, 400 and 422 as
 * `readJsonBody` answers them; a 422 names the fields of the shape that was sent.
 */
async function readInvokeBody(
  request: Request,
): Promise<{ readonly request: ChatRequest; readonly approvals?: ApprovalsRequest['approvals'] }> {
  const json = await readJson(request);
  if (isUiChatBody(json)) {
    const body = validBody(json, UiChatRequest);
    const approvals = approvalsOfUiChat(body);
    if (approvals === undefined) return { request: chatRequestOfUiChat(body) };
    // `addToolApprovalResponse` sent the answers: the run goes on from its own request, streamed unless `stream: false`.
    const request: Mutable<ChatRequest> = {
      user_identifier: body.user_identifier ?? UI_CHAT_USER,
      session_id: body.id,
      message: '',
      role: 'user',
      stream: body.stream ?? true,
    };
    if (body.metadata !== undefined) request.metadata = body.metadata;
    return { request, approvals };
  }
  if (!isApprovalsBody(json)) return { request: validBody(json, ChatRequest) };
  const { approvals, ...rest } = validBody(json, ApprovalsRequest);
  // The run goes on from its own request: this one carries the caller's options, and no message.
  return { request: { ...rest, message: '', role: 'user' }, approvals };
}

/** Answers to approvals: `approvals` and no `message` (a chat request carries a message). */
function isApprovalsBody(json: unknown): boolean {
  return typeof json === 'object' && json !== null && 'approvals' in json && !('message' in json);
}

/**
 * The OpenAPI links of a background run's 202, whose JSON body always carries the run's `id` (a 200
 * may be a stream, which has no body to read it from): read it, cancel it, then the counts it added to; the tenant is the run's,
 * from the 202's `X-Tenant-Id` (a request may name it in the header, in `metadata.tenant_id` or not at all).
 * Stateful testers (Schemathesis) chain invoke → run → stats through them.
 */
const RUN_LINKS = {
  GetRun: {
    operationId: 'getRun',
    parameters: { id: '$response.body#/id', 'header.X-Tenant-Id': '$response.header.X-Tenant-Id' },
    description: 'The run of this turn',
  },
  CancelRun: {
    operationId: 'cancelRun',
    parameters: { id: '$response.body#/id', 'header.X-Tenant-Id': '$response.header.X-Tenant-Id' },
    description: 'Cancel the run of this turn (409 `run_finished` once it has ended)',
  },
  Stats: { operationId: 'stats', description: 'The counts this turn added to' },
} as const;

/** True when the caller asks for a background run: `"background": true`, or `Prefer: respond-async` (RFC 7240). */
function wantsBackground(request: ChatRequest, prefer: string | undefined): boolean {
  if (request.background !== undefined) return request.background;
  return prefer !== undefined && /(^|[,;\s])respond-async\s*(,|;|$)/i.test(prefer);
}

/** True when the caller asks for the UI message stream: `"stream": true` or `Accept: text/event-stream`. */
function wantsStream(request: ChatRequest, accept: string | undefined): boolean {
  if (request.stream !== undefined) return request.stream;
  return acceptNames(accept, 'text/event-stream');
}

/**
 * `POST /agent/invoke`: the HTTP side of a turn. Reads and validates the chat request (or the AI
 * SDK's chat body, read as one), hands it
 * to `answerInvoke` with the headers that matter, and sends the answer as JSON or as an AI SDK
 * UI message stream.
 */
export const invokeRoute = defineRoute(
  {
    method: 'post',
    path: INVOKE_PATH,
    security: 'apiKey',
    bodyLimit: true,
    contract: 'required',
    operation: {
      operationId: 'invoke',
      summary: 'Chat with the actor',
      parameters: [
        tenantHeader('The tenant (set by the platform); else metadata.tenant_id, else `default`'),
        {
          name: 'Prefer',
          in: 'header',
          required: false,
          description: '`respond-async` answers 202 Accepted with the run at once, as `"background": true` does',
          schema: { type: 'string' },
        },
        {
          name: IDEMPOTENCY_KEY_HEADER,
          in: 'header',
          required: false,
          description: 'A retry with the same key and body replays the stored reply',
          schema: schemaOf(IdempotencyKey),
        },
      ],
      requestBody: {
        required: true,
        description:
          "A chat request; the body of the AI SDK's `DefaultChatTransport` (`useChat`), told apart by `messages`; or answers to the tool calls the session's run waits for, told apart by `approvals` (and no `message`)",
        content: {
          'application/json': {
            schema: { oneOf: [schemaOf(ChatRequest), schemaOf(UiChatRequest), schemaOf(ApprovalsRequest)] },
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
            ...eventStream(
              TYPED_EVENT,
              'One event per AI SDK UI message stream part (JSON in `data`), ending with `data: [DONE]`',
            ),
          },
        },
        202: {
          description:
            'A background run (`"background": true` or `Prefer: respond-async`), accepted: poll `Location` or stream `Location`/stream; or answers to some of the approvals a run waits for, recorded: it waits for the rest',
          headers: {
            Location: { description: 'The run: `/agent/runs/{id}`', schema: { type: 'string' } },
            'X-Tenant-Id': {
              description:
                "The run's tenant, which reading, streaming and cancelling it need (`default` when the request named none)",
              required: true,
              schema: { type: 'string' },
            },
            'Preference-Applied': {
              description: '`respond-async` when the header asked for it',
              schema: { type: 'string' },
            },
          },
          links: RUN_LINKS,
          content: { 'application/json': { schema: schemaOf(RunStatus) } },
        },
        400: problem('Malformed JSON, or a malformed X-Tenant-Id or Idempotency-Key', [
          'invalid_json',
          'invalid_header',
        ]),
        404: problem("Answers name an approval the session's run never asked for", ['approval_not_found']),
        409: problem(
          'Idempotency-Key in use by a running request; the run was cancelled before it answered; a new message while the session waits for approvals; answers to a session waiting for none, to an approval decided already, or with other arguments',
          [
            'idempotency_key_in_use',
            'run_cancelled',
            'approval_pending',
            'run_not_awaiting_input',
            'approval_already_decided',
            'approval_arguments_changed',
          ],
        ),
        413: problem('Body over BODY_LIMIT_BYTES', ['payload_too_large']),
        415: problem('Not JSON', ['unsupported_media_type']),
        422: problem('Invalid fields, or an Idempotency-Key reused with another body', [
          'validation_failed',
          'idempotency_key_reused',
        ]),
        499: problem('Client closed the request (with `on_disconnect: "cancel"`)', ['client_closed_request']),
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
      const { request, approvals } = await readInvokeBody(c.req.raw);
      const tenantId = requestTenant(c.req.header('X-Tenant-Id'), request);
      const answer = await answerInvoke(ctx, {
        request,
        ...(approvals === undefined ? {} : { approvals }),
        tenantId,
        requestId: c.env.requestId,
        stream: wantsStream(request, c.req.header('Accept')),
        background: wantsBackground(request, c.req.header('Prefer')),
        idempotencyKey: c.req.header(IDEMPOTENCY_KEY_HEADER),
        requestSignal: c.req.raw.signal,
        keepInFlight: c.env.keepInFlight,
      });
      if (answer.kind === 'reply') return c.json(answer.reply);
      if (answer.kind === 'accepted') {
        c.header('Location', `${RUNS_PATH}/${answer.run.id}`);
        c.header('X-Tenant-Id', tenantId);
        if (request.background === undefined) c.header('Preference-Applied', 'respond-async');
        return c.json(answer.run, 202);
      }
      if (answer.kind === 'replay' || answer.replayed) c.header('Idempotent-Replayed', 'true');
      if (answer.kind === 'replay')
        return c.body(answer.body, answer.status as 200, { 'Content-Type': 'application/json' });
      return c.body(answer.body, 200, UI_MESSAGE_STREAM_HEADERS);
    },
);
