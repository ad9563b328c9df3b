import type { Context } from 'hono';
import type { ActorContext, ActorEnv } from '../../context/actor-context.js';
import type { ActorRouter } from '../../context/actor-router.js';
import type { DocumentedOperation } from '../../context/documented-operation.js';
import { ActorError } from '../../core/actor-error.js';
import type { ProblemCode } from '../../core/problem-codes.js';
import { PROBLEM_CONTENT_TYPE } from '../../core/problem-response.js';
import { readJson } from '../../core/read-json-body.js';
import { refuseWhenNotServing } from '../../core/actor-lifecycle.js';
import { DEFAULT_TENANT, headerTenant } from '../../core/tenant-id.js';
import { limitRequestBody } from '../../middleware/body-limit/index.js';
import { eventStream, json, problem, schemaOf, tenantHeader } from '../../route-kit/openapi-parts.js';
import { A2A_CARD_PATH, A2A_JSON_RPC_PATH, a2aAgentCard, type CardTool } from './a2a-agent-card.js';
import { A2A_CALL_KEY, A2aRequestHandler, type A2aCall } from './a2a-request-handler.js';
import { SendMessageBody, sendMessageRefusal } from './a2a-send-message.js';
import { sseData } from '../../invoke/ui-message-stream.js';
import { type A2aSdk, type A2aSdkImporter, loadA2aSdk } from './load-a2a-sdk.js';

/** Options of `a2aRouter`. */
export interface A2aRouterOptions {
  /** The actor's tools now (the agent builds them at start): each is a skill of the card. */
  readonly tools: () => readonly CardTool[];
  /** Imports the SDK; a test passes a failing one to play an actor without the package. */
  readonly importSdk?: A2aSdkImporter;
}

/** The JSON-RPC error codes of JSON-RPC 2.0 itself that the route answers before the SDK's transport. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * The origin the client addressed: on the platform, the relay's `X-Forwarded-Proto` and
 * `X-Forwarded-Host` (it is trusted there, as the Origin check trusts it); else the request's own.
 */
function addressedOrigin(c: Context<ActorEnv>, platformMode: boolean): string {
  const url = new URL(c.req.url);
  const host = (platformMode ? c.req.header('X-Forwarded-Host')?.split(',')[0]?.trim() : undefined) || url.host;
  const proto =
    (platformMode ? c.req.header('X-Forwarded-Proto')?.split(',')[0]?.trim() : undefined) || url.protocol.slice(0, -1);
  return `${proto}://${host}`;
}

/** A JSON-RPC error response (HTTP 200, as A2A's JSON-RPC binding answers its errors). */
function rpcError(id: unknown, error: { code: number; message: string }, status = 200): Response {
  const requestId = typeof id === 'string' || typeof id === 'number' ? id : null;
  return Response.json({ jsonrpc: '2.0', id: requestId, error }, { status });
}

/** The headers of an SSE answer. */
const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' };

/**
 * The events with the first one already pulled, so that an error before any event (a task not
 * found) is thrown here and answered as an error response instead of an SSE stream.
 */
async function firstEventFirst<T>(events: AsyncGenerator<T>): Promise<AsyncGenerator<T>> {
  const first = await events.next();
  return (async function* () {
    if (first.done === true) return;
    yield first.value;
    yield* events;
  })();
}

/**
 * The events as SSE (`data: <json>` each, `toJson` of the event); an error after the first ends
 * the stream with `event: error` and its body (`errorBody`), as the SDK's client reads it;
 * `leave` once it ends or its reader leaves.
 */
function sseOf<T>(
  events: AsyncGenerator<T>,
  toJson: (event: never) => unknown,
  leave: () => void,
  errorBody: (error: unknown) => unknown,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await events.next();
        if (next.done === true) {
          controller.close();
          leave();
          return;
        }
        controller.enqueue(encoder.encode(`data: ${sseData(JSON.stringify(toJson(next.value as never)))}\n\n`));
      } catch (error) {
        controller.enqueue(encoder.encode(`event: error\ndata: ${sseData(JSON.stringify(errorBody(error)))}\n\n`));
        controller.close();
        leave();
      }
    },
    async cancel() {
      leave();
      await events.return(undefined);
    },
  });
}

const A2A_TENANT = tenantHeader("The tenant (set by the platform), else `default`: another tenant's task is not found");
const A2A_VERSION_TEXT =
  'The protocol version, `1.0`. A2A reads its absence as 0.3, which this actor does not speak (VersionNotSupported)';

/** The headers a JSON-RPC call reads: a version it does not speak is a JSON-RPC error (-32009) in a 200, as JSON-RPC answers. */
const A2A_JSON_RPC_PARAMETERS = [
  { name: 'A2A-Version', in: 'header', required: false, description: A2A_VERSION_TEXT, schema: { type: 'string' } },
  A2A_TENANT,
];

/** The headers an HTTP+JSON call reads: any version but `1.0` is a 400 (VersionNotSupported), so every call sends it, as the official clients do. */
const A2A_HTTP_JSON_PARAMETERS = [
  {
    name: 'A2A-Version',
    in: 'header',
    required: true,
    description: A2A_VERSION_TEXT,
    schema: { type: 'string', enum: ['1.0'] },
  },
  A2A_TENANT,
];

/** The task id of an HTTP+JSON task path: what comes before its first `:`, with something left after `trim()`. */
const TASK_ID_PATTERN = '^[^:]*[^:\\s\\uFEFF][^:]*';

/** An HTTP+JSON operation of `/a2a`: its answer, and its A2A errors as problem documents carrying the spec's `error` body. */
function httpJsonOperation(
  method: 'get' | 'post',
  path: string,
  operationId: string,
  summary: string,
  answer: Record<string, unknown>,
): DocumentedOperation {
  const a2aError = {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        description: "A2A's error: its JSON-RPC `code`, the HTTP `status` name, `message` and `details`",
        properties: {
          code: { type: 'integer' },
          status: { type: 'string' },
          message: { type: 'string' },
          details: { type: 'array' },
        },
      },
    },
  };
  /** A2A's error body, or (`refusedBefore`) the problem of a request refused before A2A reads it, as on every JSON route. */
  const error = (description: string, ...refusedBefore: ProblemCode[]) => {
    const before =
      refusedBefore.length === 0 ? undefined : problem('', refusedBefore as [ProblemCode, ...ProblemCode[]]);
    const schema = before === undefined ? a2aError : { anyOf: [a2aError, before.content[PROBLEM_CONTENT_TYPE].schema] };
    return { description, content: { [PROBLEM_CONTENT_TYPE]: { schema } } };
  };
  return {
    method,
    path: `${A2A_JSON_RPC_PATH}${path}`,
    ...(method === 'post' ? { bodyLimit: true } : {}),
    operation: {
      operationId,
      summary,
      parameters: [
        ...(path.includes('{task}')
          ? [
              {
                name: 'task',
                in: 'path',
                required: true,
                description:
                  method === 'get'
                    ? 'The task id (a run id, not blank) to get it, or `<id>:subscribe` to follow it'
                    : '`<id>:cancel` or `<id>:subscribe` (the id of a run, not blank)',
                // The id, before the first `:`, is refused when `trim()` leaves nothing; any other
                // operation is UnsupportedOperation (400).
                schema: {
                  type: 'string',
                  pattern: `${TASK_ID_PATTERN}${method === 'get' ? '(:subscribe)?$' : ':(cancel|subscribe)$'}`,
                },
              },
            ]
          : []),
        ...A2A_HTTP_JSON_PARAMETERS,
      ],
      ...(method === 'post' && !path.includes('{task}')
        ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(SendMessageBody) } } } }
        : {}),
      responses: {
        200: answer,
        400: error(
          "A2A's refusals (its `error.details[0].reason` names which, as the SDK's clients read it): a malformed request (RequestMalformed); an unsupported A2A-Version (VersionNotSupported); a part of a kind or media type the actor does not take (ContentTypeNotSupported); a task that already ended (TaskNotCancelable); an operation, push notifications or the extended card, which are not offered (UnsupportedOperation and the like). A malformed X-Tenant-Id is a problem (code `invalid_header`), refused before A2A reads the call",
          'invalid_header',
        ),
        404: error('No task of this id for this tenant (TaskNotFound)'),
      },
    },
  };
}

/** The operations of the A2A routes, for `/openapi.json`. */
function a2aOperations(): DocumentedOperation[] {
  const sse = {
    description: 'An SSE stream of StreamResponse events',
    content: eventStream({ type: 'object' }, 'One StreamResponse (JSON in `data`)'),
  };
  return [
    httpJsonOperation(
      'post',
      '/message:send',
      'a2aSendMessage',
      'A2A HTTP+JSON: send a message (starts a run; answers its task)',
      json('{task}', { type: 'object' }),
    ),
    httpJsonOperation(
      'post',
      '/message:stream',
      'a2aStreamMessage',
      'A2A HTTP+JSON: send a message and stream its task',
      sse,
    ),
    httpJsonOperation(
      'get',
      '/tasks',
      'a2aListTasks',
      "A2A HTTP+JSON: the tenant's tasks, the newest first (contextId, status, pageSize up to 100, pageToken)",
      json('{tasks, nextPageToken, pageSize, totalSize}', { type: 'object' }),
    ),
    httpJsonOperation(
      'get',
      '/tasks/{task}',
      'a2aGetTask',
      'A2A HTTP+JSON: a task (a run), or `GET /a2a/tasks/{id}:subscribe` to follow it',
      json('The task', { type: 'object' }),
    ),
    httpJsonOperation(
      'post',
      '/tasks/{task}',
      'a2aTaskAction',
      'A2A HTTP+JSON: `{id}:cancel` cancels the run; `{id}:subscribe` follows it (SSE)',
      json('The task, or an SSE stream for :subscribe', { type: 'object' }),
    ),
    {
      method: 'get',
      path: A2A_CARD_PATH,
      security: 'open',
      operation: {
        operationId: 'a2aAgentCard',
        summary:
          "The A2A agent card (public, for discovery): name, skills from the actor's tools, interfaces, security",
        responses: { 200: json('The agent card (A2A 1.0)', { type: 'object' }) },
      },
    },
    {
      method: 'post',
      path: A2A_JSON_RPC_PATH,
      bodyLimit: true,
      operation: {
        operationId: 'a2aJsonRpc',
        summary:
          'A2A 1.0 JSON-RPC: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask (a task is a run; contextId is the session)',
        parameters: A2A_JSON_RPC_PARAMETERS,
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {
          200: {
            description:
              'A JSON-RPC response (errors too, with A2A codes: -32001 task not found, -32002 not cancelable, -32004 unsupported, -32005 content type, -32009 version), or an SSE stream of them for the streaming methods',
            content: {
              'application/json': { schema: { type: 'object' } },
              ...eventStream({ type: 'object' }, 'One JSON-RPC response (JSON in `data`)'),
            },
          },
          400: {
            description:
              'A body that is not JSON (a JSON-RPC parse error, -32700) or not one JSON object (invalid request, -32600: A2A takes no batches), or a malformed X-Tenant-Id (a problem, code `invalid_header`)',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['jsonrpc', 'error'],
                  properties: { jsonrpc: { const: '2.0' }, id: {}, error: { type: 'object' } },
                },
              },
              ...problem('', ['invalid_header']).content,
            },
          },
          415: problem('The body is not sent as application/json', ['unsupported_media_type']),
        },
      },
    },
  ];
}

/**
 * The A2A routes (`expose_a2a`): the agent card at `/.well-known/agent-card.json` (public, like
 * `/health`: discovery comes before any key), and the JSON-RPC binding at `POST /a2a`, behind
 * the API key like `/agent/invoke`, answered by the SDK's JSON-RPC transport handler over
 * `A2aRequestHandler` (a task is a run). The SDK is imported at start, so an actor without it
 * refuses to start.
 */
export function a2aRouter(options: A2aRouterOptions): ActorRouter {
  let sdk: A2aSdk | undefined;
  return {
    name: 'a2a',
    async start() {
      sdk ??= await loadA2aSdk(options.importSdk);
    },
    operations: a2aOperations,
    mount(app, ctx: ActorContext) {
      const cardOf = (c: Context<ActorEnv>) =>
        a2aAgentCard({
          metadata: ctx.definition.metadata,
          tools: options.tools(),
          apiKey: ctx.config.apiKeys.length > 0,
          origin: addressedOrigin(c, ctx.config.platformMode),
        });
      const loaded = (): A2aSdk => {
        if (sdk === undefined) throw new Error('The a2a router was not started');
        return sdk;
      };
      app.get(A2A_CARD_PATH, function a2aAgentCardRoute(c) {
        return c.json(loaded().AgentCard.toJSON(cardOf(c)) as object);
      });
      let transport: InstanceType<A2aSdk['JsonRpcTransportHandler']> | undefined;
      let handler: A2aRequestHandler | undefined;
      const handlerOf = (a2a: A2aSdk) => (handler ??= new A2aRequestHandler(a2a, ctx));
      /** The call's context: its HTTP facts, and the version it asked for, checked against the card's binding. */
      const callContext = (c: Context<ActorEnv>, a2a: A2aSdk, binding: 'JSONRPC' | 'HTTP+JSON') => {
        const card = cardOf(c);
        const call: A2aCall = {
          tenantId: headerTenant(c.req.header('X-Tenant-Id')) ?? DEFAULT_TENANT,
          requestId: c.env.requestId,
          idempotencyKey: c.req.header('Idempotency-Key'),
          signal: c.req.raw.signal,
          keepInFlight: c.env.keepInFlight,
          card,
        };
        const requestedVersion = c.req.header('A2A-Version') || undefined;
        const context = new a2a.ServerCallContext({
          ...(requestedVersion === undefined ? {} : { requestedVersion }),
          state: new Map([[A2A_CALL_KEY, call]]),
        });
        a2a.validateVersion(context.requestedVersion, card, binding);
        return context;
      };
      /** An HTTP+JSON call: its A2A error as the spec's body (`{error: {code, status, message, details}}`), which is also a problem document. */
      const rest = (answer: (c: Context<ActorEnv>, a2a: A2aSdk) => Promise<Response>) =>
        async function a2aHttpJson(c: Context<ActorEnv>): Promise<Response> {
          refuseWhenNotServing(ctx.lifecycle);
          const a2a = loaded();
          try {
            return await answer(c, a2a);
          } catch (error) {
            if (error instanceof ActorError || !(error instanceof a2a.A2AError)) throw error;
            const status = a2a.restStatusFor(error);
            const body = a2a.toRestErrorBody(error, status);
            const problem = {
              type: 'about:blank',
              title: error.name,
              status,
              detail: error.message,
              code: error.name,
              request_id: c.env.requestId,
            };
            return new Response(JSON.stringify({ ...problem, ...body }), {
              status,
              headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, 'X-Request-Id': c.env.requestId },
            });
          }
        };
      /** Throws the A2A error of a SendMessage body (HTTP+JSON) or params (JSON-RPC) that is not well formed. */
      const checkSendMessage = (a2a: A2aSdk, body: unknown) => {
        const refusal = sendMessageRefusal(body);
        if (refusal?.kind === 'unsupported') throw new a2a.ContentTypeNotSupportedError(refusal.message);
        if (refusal?.kind === 'malformed') throw new a2a.RequestMalformedError(refusal.message);
      };
      /** A checked HTTP+JSON SendMessage body, as the SDK reads it. */
      const sendMessageParams = async (c: Context<ActorEnv>, a2a: A2aSdk) => {
        const body = await restBody(c, a2a);
        checkSendMessage(a2a, body);
        return a2a.SendMessageRequest.fromJSON(body);
      };
      /** The parsed JSON body of an HTTP+JSON call; RequestMalformed when it is not a JSON object. */
      const restBody = async (c: Context<ActorEnv>, a2a: A2aSdk): Promise<object> => {
        let body: unknown;
        try {
          body = JSON.parse(await c.req.text());
        } catch (error) {
          if (error instanceof ActorError) throw error;
          throw new a2a.RequestMalformedError('The body is not JSON');
        }
        // `null` would reach the SDK's decoder, which reads fields of it (a 500).
        if (typeof body !== 'object' || body === null || Array.isArray(body))
          throw new a2a.RequestMalformedError('The body must be a JSON object');
        return body;
      };
      const sse = (c: Context<ActorEnv>, a2a: A2aSdk, events: AsyncGenerator<unknown>) => {
        const errorBody = (error: unknown) => {
          const known = error instanceof a2a.A2AError ? error : new a2a.InvalidAgentResponseError('The stream failed');
          return a2a.toRestErrorBody(known, a2a.restStatusFor(known));
        };
        return c.body(sseOf(events, a2a.StreamResponse.toJSON, c.env.keepInFlight(), errorBody), 200, SSE_HEADERS);
      };
      app.use(`${A2A_JSON_RPC_PATH}/*`, limitRequestBody({ maxSize: ctx.config.bodyLimitBytes }));
      app.post(
        `${A2A_JSON_RPC_PATH}/message:send`,
        rest(async (c, a2a) => {
          const context = callContext(c, a2a, 'HTTP+JSON');
          const params = await sendMessageParams(c, a2a);
          const result = await handlerOf(a2a).sendMessage(params, context);
          const payload =
            'messageId' in result
              ? { $case: 'message' as const, value: result }
              : { $case: 'task' as const, value: result };
          return c.json(a2a.SendMessageResponse.toJSON({ payload }) as object);
        }),
      );
      app.post(
        `${A2A_JSON_RPC_PATH}/message:stream`,
        rest(async (c, a2a) => {
          const context = callContext(c, a2a, 'HTTP+JSON');
          const params = await sendMessageParams(c, a2a);
          const events = await firstEventFirst(handlerOf(a2a).sendMessageStream(params, context));
          return sse(c, a2a, events);
        }),
      );
      app.get(
        `${A2A_JSON_RPC_PATH}/tasks`,
        rest(async (c, a2a) => {
          const context = callContext(c, a2a, 'HTTP+JSON');
          const params = a2a.ListTasksRequest.fromJSON(c.req.query());
          return c.json(a2a.ListTasksResponse.toJSON(await handlerOf(a2a).listTasks(params, context)) as object);
        }),
      );
      const taskRoute = rest(async (c, a2a) => {
        const context = callContext(c, a2a, 'HTTP+JSON');
        const [id = '', action, ...more] = (c.req.param('task') ?? '').split(':');
        if (more.length > 0)
          throw new a2a.UnsupportedOperationError(`No such task operation: tasks/{id}:${action}:${more.join(':')}`);
        if (action === 'subscribe') {
          const events = await firstEventFirst(handlerOf(a2a).resubscribe({ tenant: '', id }, context));
          return sse(c, a2a, events);
        }
        if (c.req.method === 'POST' && action === 'cancel')
          return c.json(
            a2a.Task.toJSON(
              await handlerOf(a2a).cancelTask({ tenant: '', id, metadata: undefined }, context),
            ) as object,
          );
        if (c.req.method === 'GET' && action === undefined)
          return c.json(a2a.Task.toJSON(await handlerOf(a2a).getTask({ tenant: '', id }, context)) as object);
        throw new a2a.UnsupportedOperationError(
          `No such task operation: ${c.req.method} tasks/{id}${action === undefined ? '' : `:${action}`}`,
        );
      });
      app.get(`${A2A_JSON_RPC_PATH}/tasks/:task`, taskRoute);
      app.post(`${A2A_JSON_RPC_PATH}/tasks/:task`, taskRoute);
      app.use(A2A_JSON_RPC_PATH, limitRequestBody({ maxSize: ctx.config.bodyLimitBytes }));
      app.post(A2A_JSON_RPC_PATH, async function a2aJsonRpc(c) {
        refuseWhenNotServing(ctx.lifecycle);
        const a2a = loaded();
        transport ??= new a2a.JsonRpcTransportHandler(handlerOf(a2a));
        // HTTP-level refusals come first, as problems: a body that is not sent as JSON (415) and a
        // malformed X-Tenant-Id (400); a body that does not parse is JSON-RPC's parse error, sent 400.
        let body: unknown;
        try {
          body = await readJson(c.req.raw);
        } catch (error) {
          if (!(error instanceof ActorError) || error.code !== 'invalid_json') throw error;
          return rpcError(null, { code: PARSE_ERROR, message: 'Parse error: the body is not JSON' }, 400);
        }
        if (typeof body !== 'object' || body === null || Array.isArray(body))
          return rpcError(
            null,
            {
              code: INVALID_REQUEST,
              message: 'Invalid Request: the body must be one JSON-RPC request object (no batches)',
            },
            400,
          );
        const id = (body as { id?: unknown }).id;
        let context: InstanceType<A2aSdk['ServerCallContext']>;
        try {
          context = callContext(c, a2a, 'JSONRPC');
        } catch (error) {
          if (error instanceof ActorError) throw error;
          return rpcError(id, a2a.JsonRpcTransportHandler.mapToJSONRPCError(error));
        }
        const call = body as { method?: unknown; params?: unknown };
        if (
          (call.method === 'SendMessage' || call?.method === 'SendStreamingMessage') &&
          typeof call.params === 'object' &&
          call.params !== null &&
          !Array.isArray(call.params)
        ) {
          try {
            checkSendMessage(a2a, call.params);
          } catch (error) {
            return rpcError(id, a2a.JsonRpcTransportHandler.mapToJSONRPCError(error));
          }
        }
        const answer = await transport.handle(body as Record<string, unknown>, context);
        if (!(Symbol.asyncIterator in answer)) return c.json(answer);
        let events: AsyncGenerator<unknown>;
        try {
          events = await firstEventFirst(answer);
        } catch (error) {
          return rpcError(id, a2a.JsonRpcTransportHandler.mapToJSONRPCError(error));
        }
        const asRpcError = (error: unknown) => ({
          jsonrpc: '2.0',
          id: id ?? null,
          error: a2a.JsonRpcTransportHandler.mapToJSONRPCError(error),
        });
        return c.body(
          sseOf(events, (event) => event, c.env.keepInFlight(), asRpcError),
          200,
          SSE_HEADERS,
        );
      });
    },
  };
}
