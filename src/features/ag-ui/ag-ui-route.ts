import * as v from 'valibot';
import type { FieldProblem } from '../../core/actor-error.js';
import { refuseWhenNotServing } from '../../core/actor-lifecycle.js';
import { jsonPointer, pointerSegments } from '../../core/json-pointer.js';
import type { Mutable } from '../../core/mutable.js';
import { readJson, validBody } from '../../core/read-json-body.js';
import { fieldProblems, validationFailed } from '../../core/validation-problem.js';
import { answerInvoke, type InvokeAnswer } from '../../invoke/answer-invoke.js';
import { ChatReply } from '../../invoke/chat-reply.js';
import { type ApprovalAnswer, ApprovalsRequest, ChatRequest, requestTenant } from '../../invoke/chat-request.js';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyKey } from '../../invoke/idempotency.js';
import { replayStream } from '../../invoke/ui-message-stream.js';
import { defineRoute } from '../../route-kit/actor-route.js';
import { eventStream, problem, schemaOf, TYPED_EVENT, tenantHeader } from '../../route-kit/openapi-parts.js';
import { agUiEventStream, eventFrame } from './ag-ui-events.js';
import { RunAgentInput } from './run-agent-input.js';

/** Where AG-UI clients (`HttpAgent` from `@ag-ui/client`) post a `RunAgentInput`. */
const AG_UI_PATH = '/agent/ag-ui';

/** The user a turn is recorded under when `forwardedProps.user_identifier` names none. */
const AG_UI_USER = 'ag-ui';

/** Response headers of the AG-UI event stream (SSE). */
const AG_UI_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
};

/** What `forwardedProps` may carry for the actor: the user and the chat request's metadata. */
interface ForwardedProps {
  readonly user_identifier?: unknown;
  readonly metadata?: unknown;
}

/** The text of the last message, which must be the user's: its string content, or its text parts joined by a line break. */
function userText(input: RunAgentInput): string {
  const last = input.messages.length - 1;
  const message = input.messages[last];
  if (message === undefined)
    throw validationFailed([{ pointer: '/messages', detail: 'must hold at least one message, or send resume' }]);
  if (message.role !== 'user')
    throw validationFailed([
      {
        pointer: jsonPointer('messages', last, 'role'),
        detail: 'must be "user": the actor answers the last message, which must be the user\'s',
      },
    ]);
  const { content } = message;
  if (content === undefined || typeof content === 'string') return content ?? '';
  const problems: FieldProblem[] = [];
  const texts: string[] = [];
  content.forEach((part, index) => {
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else
      problems.push({
        pointer: jsonPointer('messages', last, 'content', index),
        detail: 'must be a text part: the actor takes no other content over AG-UI',
      });
  });
  if (problems.length > 0) throw validationFailed(problems);
  return texts.join('\n');
}

/** The answers `resume` carries: `resolved` approves unless its payload says `approved: false`; `cancelled` denies. */
function approvalsOfResume(resume: NonNullable<RunAgentInput['resume']>): ApprovalAnswer[] {
  return resume.map(({ interruptId, status, payload }) => {
    const decision = (typeof payload === 'object' && payload !== null ? payload : {}) as {
      approved?: unknown;
      reason?: unknown;
    };
    const answer: Mutable<ApprovalAnswer> = {
      id: interruptId,
      approved: status === 'resolved' && decision.approved !== false,
    };
    if (typeof decision.reason === 'string') answer.reason = decision.reason;
    return answer;
  });
}

/** The field of the `RunAgentInput` a chat request's (or an answer's) field came from, for a 422 that names what was sent. */
function inputPointer(pointer: string, lastMessage: number): string {
  const [field, ...rest] = pointerSegments(pointer);
  if (field === 'session_id') return '/threadId';
  if (field === 'message') return jsonPointer('messages', lastMessage, 'content');
  if (field === 'user_identifier' || field === 'metadata') return jsonPointer('forwardedProps', field, ...rest);
  if (field === 'approvals') {
    const [index, answerField] = rest;
    if (answerField === 'id') return jsonPointer('resume', index ?? '', 'interruptId');
    if (answerField === 'reason') return jsonPointer('resume', index ?? '', 'payload', 'reason');
    return jsonPointer('resume', ...rest);
  }
  return pointer;
}

/** `schema`'s output for `value`, or a 422 naming the fields of the `RunAgentInput` they came from. */
function validFromInput<TSchema extends v.GenericSchema>(
  schema: TSchema,
  value: unknown,
  input: RunAgentInput,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  const last = input.messages.length - 1;
  throw validationFailed(
    fieldProblems(result.issues).map((issue) => ({ ...issue, pointer: inputPointer(issue.pointer, last) })),
  );
}

/**
 * The chat request of a `RunAgentInput`, and the approvals it answers: `threadId` is the session;
 * `resume` answers the approvals the thread's run waits for (no new message, as an invoke's
 * `approvals`); else the last message, the user's, is the turn. `forwardedProps.user_identifier`
 * names the user (`ag-ui` when absent) and `forwardedProps.metadata` is the chat request's
 * metadata. The invoke's own rules then apply; a 422 names the field of the input.
 */
function chatRequestOfInput(input: RunAgentInput): {
  readonly request: ChatRequest;
  readonly approvals?: ApprovalAnswer[];
} {
  const forwarded = (
    typeof input.forwardedProps === 'object' && input.forwardedProps !== null ? input.forwardedProps : {}
  ) as ForwardedProps;
  const fields = {
    user_identifier: forwarded.user_identifier ?? AG_UI_USER,
    session_id: input.threadId,
    ...(forwarded.metadata === undefined ? {} : { metadata: forwarded.metadata }),
    stream: true,
  };
  if (input.resume === undefined || input.resume.length === 0)
    return { request: validFromInput(ChatRequest, { ...fields, message: userText(input) }, input) };
  const { approvals, ...rest } = validFromInput(
    ApprovalsRequest,
    { ...fields, approvals: approvalsOfResume(input.resume) },
    input,
  );
  // The run goes on from its own request: this one carries the caller's options, and no message.
  return { request: { ...rest, message: '', role: 'user' }, approvals };
}

/** The UI message stream of an answer, whatever its kind (a streamed invoke is a stream, or a replayed reply). */
function uiStreamOf(answer: Exclude<InvokeAnswer, { kind: 'accepted' }>): ReadableStream<Uint8Array> {
  if (answer.kind === 'stream') return answer.body;
  if (answer.kind === 'reply') return replayStream(answer.reply);
  return replayStream(v.parse(ChatReply, JSON.parse(answer.body)));
}

/** The SSE frames of a run that took some answers and waits for the rest: RUN_STARTED, a STATE_SNAPSHOT of it, RUN_FINISHED. */
function waitingStream(ids: { threadId: string; runId: string }, runId: string): ReadableStream<Uint8Array> {
  const events = [
    { type: 'RUN_STARTED', ...ids, metadata: { actorkit_run_id: runId } },
    {
      type: 'STATE_SNAPSHOT',
      snapshot: { actorkit: { run_id: runId, session_id: ids.threadId, status: 'awaiting_input' } },
    },
    { type: 'RUN_FINISHED', ...ids, outcome: { type: 'success' } },
  ];
  return new ReadableStream({
    start(controller) {
      for (const event of events) controller.enqueue(eventFrame(event));
      controller.close();
    },
  });
}

/**
 * `POST /agent/ag-ui` (`expose_ag_ui`): the actor as an AG-UI agent. Reads AG-UI's
 * `RunAgentInput`, runs the turn as `POST /agent/invoke` does (a run, its tenant, its
 * `Idempotency-Key`), and streams the run as AG-UI events (see `agUiEventStream`). Bad input is a
 * problem before the stream starts; a turn that fails after it started ends with RUN_ERROR.
 */
export const agUiRoute = defineRoute(
  {
    method: 'post',
    path: AG_UI_PATH,
    security: 'apiKey',
    bodyLimit: true,
    operation: {
      operationId: 'runAgUi',
      summary: 'Run the actor as an AG-UI agent',
      description:
        "AG-UI protocol 1.0 over SSE, as `HttpAgent` from `@ag-ui/client` speaks it. `threadId` is the session; each run is an actorkit run, named in RUN_STARTED's `metadata.actorkit_run_id` (the client's `runId` is echoed as AG-UI's). A run that waits for tool approvals ends with RUN_FINISHED `outcome: interrupt`, one interrupt per approval (`id` = the approval id); the next run's `resume` answers them (`resolved` approves unless `payload.approved` is false, `cancelled` denies, `payload.reason` tells the model why). Mounted when `expose_ag_ui` is on.",
      parameters: [
        tenantHeader('The tenant (set by the platform); else forwardedProps.metadata.tenant_id, else `default`'),
        {
          name: IDEMPOTENCY_KEY_HEADER,
          in: 'header',
          required: false,
          description: 'A retry with the same key and body replays the stored reply as events',
          schema: schemaOf(IdempotencyKey),
        },
      ],
      requestBody: {
        required: true,
        description:
          "AG-UI's RunAgentInput; `forwardedProps.user_identifier` names the user (`ag-ui` when absent), `forwardedProps.metadata` is the chat request's metadata",
        content: {
          'application/json': {
            schema: schemaOf(RunAgentInput),
            examples: {
              run: {
                summary: 'A user message',
                value: {
                  threadId: 'session-1',
                  runId: 'run-1',
                  messages: [{ id: 'm1', role: 'user', content: 'Hello' }],
                  tools: [],
                  context: [],
                  state: {},
                  forwardedProps: {},
                },
              },
            },
          },
        },
      },
      responses: {
        200: {
          description:
            'Server-sent events: one `data:` line per AG-UI event (JSON): RUN_STARTED, TEXT_MESSAGE_*, TOOL_CALL_* and TOOL_CALL_RESULT, STATE_SNAPSHOT, then RUN_FINISHED or RUN_ERROR',
          content: eventStream(TYPED_EVENT, 'One AG-UI event (JSON in `data`)'),
        },
        400: problem('Malformed JSON, or a malformed X-Tenant-Id or Idempotency-Key', [
          'invalid_json',
          'invalid_header',
        ]),
        404: problem("`resume` names an approval the thread's run never asked for", ['approval_not_found']),
        409: problem(
          'Idempotency-Key in use; a new message while the thread waits for approvals; answers to a thread waiting for none, or to an approval decided already',
          ['idempotency_key_in_use', 'approval_pending', 'run_not_awaiting_input', 'approval_already_decided'],
        ),
        413: problem('Body over BODY_LIMIT_BYTES', ['payload_too_large']),
        415: problem('Not JSON', ['unsupported_media_type']),
        422: problem('Invalid fields of the RunAgentInput, or an Idempotency-Key reused with another body', [
          'validation_failed',
          'idempotency_key_reused',
        ]),
        503: problem('Starting or draining', ['starting', 'draining']),
      },
    },
  },
  (ctx) =>
    async function runAgUi(c) {
      refuseWhenNotServing(ctx.lifecycle);
      const input = validBody(await readJson(c.req.raw), RunAgentInput);
      const { request, approvals } = chatRequestOfInput(input);
      const answer = await answerInvoke(ctx, {
        request,
        ...(approvals === undefined ? {} : { approvals }),
        tenantId: requestTenant(c.req.header('X-Tenant-Id'), request),
        requestId: c.env.requestId,
        stream: true,
        background: false,
        idempotencyKey: c.req.header(IDEMPOTENCY_KEY_HEADER),
        requestSignal: c.req.raw.signal,
        keepInFlight: c.env.keepInFlight,
      });
      const ids = { threadId: input.threadId, runId: input.runId };
      if (answer.kind === 'accepted') return c.body(waitingStream(ids, answer.run.id), 200, AG_UI_STREAM_HEADERS);
      if (answer.kind === 'replay' || (answer.kind === 'stream' && answer.replayed))
        c.header('Idempotent-Replayed', 'true');
      return c.body(agUiEventStream(uiStreamOf(answer), ids), 200, AG_UI_STREAM_HEADERS);
    },
  (ctx) => ctx.definition.features.exposeAgUi === true,
);
