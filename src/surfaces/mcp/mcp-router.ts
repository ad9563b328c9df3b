import type { Context, MiddlewareHandler } from 'hono';
import * as v from 'valibot';
import type { ActorTool } from '../../agent/actor-tool.js';
import type { ActorContext, ActorEnv } from '../../context/actor-context.js';
import type { ActorRouter } from '../../context/actor-router.js';
import { ActorError, clientClosedError } from '../../core/actor-error.js';
import { DEFAULT_TENANT, headerTenant } from '../../core/tenant-id.js';
import { SessionId } from '../../invoke/chat-request.js';
import { refuseWhenNotServing } from '../../core/actor-lifecycle.js';
import { limitRequestBody } from '../../middleware/body-limit/index.js';
import { refuseForeignOrigin } from '../../middleware/origin-check/index.js';
import { loadMcpServerSdk, type McpSdkImporter, type McpServerSdk } from './load-mcp-server-sdk.js';
import { createMcpActorServer } from './mcp-actor-server.js';
import { McpCallsInFlight } from './mcp-calls-in-flight.js';
import { McpElicitations } from './mcp-elicitations.js';
import { issueMcpSessionId, sessionElicits } from './mcp-session-id.js';
import { asAuthInfo } from './mcp-request-context.js';
import { screenMcpRequests } from './screen-mcp-requests.js';
import { eventStream, json, type JsonSchemaObject, problem, schemaOf } from '../../route-kit/openapi-parts.js';
import type { DocumentedOperation } from '../../context/documented-operation.js';
import { acceptNames } from '../../core/accept-names.js';
import { PROBLEM_CONTENT_TYPE, type ProblemDocument } from '../../core/problem-response.js';

/** The JSON-RPC code of a refusal answered at the HTTP level, as the SDK's transport answers its own. */
const SERVER_ERROR = -32000;

/**
 * The body of a refusal an MCP client can show: a JSON-RPC error (id `null`: no request id is
 * read yet) whose message is the problem's title, detail and code, and whose `data` is the
 * whole problem document.
 * @param problem the problem the actor answered
 */
function jsonRpcRefusal(problem: ProblemDocument) {
  const message = `${problem.title}${problem.detail === undefined ? '' : `: ${problem.detail}`} (${problem.code})`;
  return { jsonrpc: '2.0' as const, id: null, error: { code: SERVER_ERROR, message, data: problem } };
}

/**
 * Rewrites the problem+json refusals of `/mcp` (401 of the API key, 403 of the Origin check,
 * 400, 405, 503, …) for an MCP client: a request that accepts `text/event-stream` (as every
 * Streamable HTTP client must) and does not name `application/problem+json` gets the same status
 * and headers with a JSON-RPC error body (`jsonRpcRefusal`) as `application/json`, which the MCP
 * Python client reads and shows, where it reports any other error body only as "Server returned
 * an error response". Mount it before the API-key check so it sees that refusal too.
 */
function mcpRefusalsAsJsonRpc(): MiddlewareHandler {
  return async function mcpRefusalsAsJsonRpcMiddleware(c, next) {
    await next();
    const accept = c.req.header('Accept');
    if (!acceptNames(accept, 'text/event-stream') || acceptNames(accept, PROBLEM_CONTENT_TYPE)) return;
    if (c.res.headers.get('Content-Type') !== PROBLEM_CONTENT_TYPE || c.req.method === 'HEAD') return;
    const problem = (await c.res.json()) as ProblemDocument;
    // Hono keeps the refusal's other headers (WWW-Authenticate, Allow, X-Request-Id) on the new response.
    c.res = new Response(JSON.stringify(jsonRpcRefusal(problem)), {
      status: c.res.status,
      headers: { 'Content-Type': 'application/json' },
    });
  };
}

/** Options of `mcpRouter`. */
export interface McpRouterOptions {
  /** The actor's tools now (the agent builds them at start); the read-only ones are offered. */
  readonly tools: () => readonly ActorTool[];
  /** Imports the SDK; a test passes a failing one to play an actor without the package. */
  readonly importSdk?: McpSdkImporter;
}

/** A JSON-RPC error answered at the HTTP level (no request id is known yet), as the SDK's transport answers its own. */
function jsonRpcError(c: Context<ActorEnv>, status: 400 | 404 | 413, code: number, message: string): Response {
  return c.json({ jsonrpc: '2.0', error: { code, message }, id: null }, status);
}

/** The 400 of a request after `initialize` that carries no `Mcp-Session-Id` (the specification requires it). */
const withoutSessionId = (c: Context<ActorEnv>): Response =>
  jsonRpcError(c, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');

/** A `tools/call` of `chat`. */
function isChatCall(message: unknown): message is { params: { _meta?: unknown } } {
  if (typeof message !== 'object' || message === null) return false;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  return method === 'tools/call' && params?.name === 'chat';
}

/**
 * A `tools/call` of `chat` that may send the client messages before its result, so it is
 * answered as an SSE stream: its `_meta` carries a `progressToken`, or its session's client takes
 * elicitations (a paused run asks it).
 */
function chatCallSendsFirst(message: unknown, elicits: boolean): boolean {
  if (!isChatCall(message)) return false;
  if (elicits) return true;
  const meta = message.params._meta as { progressToken?: unknown } | undefined;
  return typeof meta?.progressToken === 'string' || typeof meta?.progressToken === 'number';
}

/** `body` as it is, calling `onEnd` once when it ends, fails, or its reader cancels it. */
function onStreamEnd(body: ReadableStream<Uint8Array>, onEnd: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          end();
        } else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        end();
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason);
    },
  });
}

const isInitialize = (message: unknown): boolean =>
  typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize';

/** Why a JSON-RPC batch cannot run (JSON-RPC 2.0 refuses an empty one; MCP never batches `initialize`); undefined when it can. */
function batchProblem(batch: readonly unknown[]): string | undefined {
  if (batch.length === 0) return 'Invalid Request: an empty batch';
  if (batch.some(isInitialize)) return 'Invalid Request: initialize must be sent alone, not in a batch';
  return undefined;
}

/** What a message in a batch may not be (`batchProblem`): an `initialize`. */
const NOT_INITIALIZE = { properties: { method: { not: { const: 'initialize' } } } };

/** One of the SDK's message schemas as JSON Schema, by the SDK's own converter (`$schema` dropped: the document names its dialect). */
function sdkJsonSchema(sdk: McpServerSdk, schema: Parameters<McpServerSdk['toJsonSchemaCompat']>[0]): JsonSchemaObject {
  const { $schema: _dialect, ...converted } = sdk.toJsonSchemaCompat(schema, { target: 'draft-2020-12' });
  return converted;
}

/**
 * The request body of `POST /mcp`: one JSON-RPC message exactly as the SDK's transport parses it
 * (its own `JSONRPCMessageSchema`), or a batch of 1 to `MCP_MAX_BATCH` (and at most the SDK's
 * `MAX_BATCH_SIZE`) of them, none an `initialize`. Until the actor has started, the SDK is not
 * loaded and the body is described in words only.
 * @param sdk the loaded SDK, or undefined before start
 * @param maxBatch `MCP_MAX_BATCH`
 */
function mcpRequestBodySchema(sdk: McpServerSdk | undefined, maxBatch: number): JsonSchemaObject {
  const description = `One JSON-RPC 2.0 message (request, notification, response or error, as the MCP SDK's transport parses it), or a batch of 1 to ${maxBatch} (MCP_MAX_BATCH) of them with no initialize in it. Every message but initialize needs the Mcp-Session-Id an initialize answered (400 without it): a rule across the body and a header, which JSON Schema cannot state. The params of each method are the server's to check: params it cannot take are a JSON-RPC error (-32602) in a 200 answer, not a 4xx.`;
  if (sdk === undefined) return { description };
  const message = sdkJsonSchema(sdk, sdk.JSONRPCMessageSchema);
  const batch = {
    type: 'array',
    minItems: 1,
    maxItems: Math.min(maxBatch, sdk.MAX_BATCH_SIZE),
    items: { allOf: [message, NOT_INITIALIZE] },
  };
  return { description, anyOf: [message, batch] };
}

/**
 * The 200 of `POST /mcp`: the JSON-RPC response (the SDK's `JSONRPCResponseSchema`), or those of
 * a batch's requests in an array; or, for a `chat` call that sends first (`chatCallSendsFirst`),
 * an SSE stream of the server's messages (the SDK's `JSONRPCMessageSchema`): progress
 * notifications and elicitation requests, then the response. Before start, any object.
 * @param sdk the loaded SDK, or undefined before start
 */
function mcpAnswer(sdk: McpServerSdk | undefined) {
  const description = 'The JSON-RPC answer, with Mcp-Session-Id after initialize';
  if (sdk === undefined) return json(description, { type: 'object' });
  const response = sdkJsonSchema(sdk, sdk.JSONRPCResponseSchema);
  return {
    description: `${description}: one response, the responses of a batch in an array, or (a chat call with a progressToken, or in a session that takes elicitation) an SSE stream of the server's messages before the response, then the response`,
    content: {
      'application/json': { schema: { anyOf: [response, { type: 'array', items: response }] } },
      ...eventStream(
        sdkJsonSchema(sdk, sdk.JSONRPCMessageSchema),
        "One JSON-RPC message of the server (JSON in `data`): a progress notification, an elicitation request, or the call's response",
      ),
    },
  };
}

async function readBodyText(c: Context<ActorEnv>): Promise<string> {
  try {
    return await c.req.text();
  } catch (error) {
    if (error instanceof ActorError) throw error;
    throw clientClosedError(error);
  }
}

/** The JSON-RPC error body `/mcp` answers its own refusals with. */
const JSON_RPC_ERROR = {
  type: 'object',
  required: ['jsonrpc', 'error', 'id'],
  properties: {
    jsonrpc: { const: '2.0' },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'integer' },
        message: { type: 'string' },
        data: { description: 'The problem document, when the refusal is one' },
      },
    },
    id: { type: 'null' },
  },
};

/**
 * The operations of `/mcp`: the JSON-RPC answers of the transport and the problems of the actor around it.
 * @param sdk the loaded SDK (its message schema is the body's), or undefined before start
 * @param maxBatch `MCP_MAX_BATCH`
 */
function mcpOperations(sdk: McpServerSdk | undefined, maxBatch: number): DocumentedOperation[] {
  const sessionId = {
    name: 'Mcp-Session-Id',
    in: 'header',
    required: false,
    description: 'The session `initialize` answered; required after it',
    schema: schemaOf(SessionId),
  };
  const rpcError = (description: string) => json(description, JSON_RPC_ERROR);
  // An MCP client (Accept: text/event-stream) gets the problem as a JSON-RPC error, in error.data (mcpRefusalsAsJsonRpc): the 401 of the key too.
  const refusalContent = { 'application/json': { schema: JSON_RPC_ERROR } };
  const refusal = (description: string, codes: Parameters<typeof problem>[1]) => {
    const asProblem = problem(description, codes);
    return { ...asProblem, content: { ...asProblem.content, ...refusalContent } };
  };
  const refusedOrigin = refusal('A browser page of another origin', ['origin_not_allowed']);
  const notServing = refusal('Starting or draining', ['starting', 'draining']);
  return [
    {
      method: 'post',
      path: '/mcp',
      refusalContent,
      operation: {
        operationId: 'mcp',
        summary:
          'MCP Streamable HTTP: the JSON-RPC messages of an MCP client (tool chat, the read-only domain tools, resources actor://metadata, actor://health, actor://stats)',
        parameters: [
          sessionId,
          {
            name: 'Accept',
            in: 'header',
            required: true,
            description: 'Must accept both application/json and text/event-stream (406 otherwise)',
            schema: {
              type: 'string',
              enum: ['application/json, text/event-stream', 'text/event-stream, application/json'],
            },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: mcpRequestBodySchema(sdk, maxBatch) },
          },
        },
        responses: {
          200: mcpAnswer(sdk),
          202: { description: 'Notifications only: accepted, no body' },
          400: rpcError(
            'Malformed JSON, not JSON-RPC, no Mcp-Session-Id after initialize, an empty batch, a batch over MCP_MAX_BATCH messages or one with an initialize in it',
          ),
          403: refusedOrigin,
          404: rpcError('An Mcp-Session-Id the actor never issues'),
          406: rpcError('Accept does not take both application/json and text/event-stream'),
          413: rpcError('Body over BODY_LIMIT_BYTES'),
          415: rpcError('Not application/json'),
          503: notServing,
        },
      },
    },
    {
      method: 'delete',
      path: '/mcp',
      refusalContent,
      operation: {
        operationId: 'mcpEndSession',
        summary: 'Ends the MCP session named by Mcp-Session-Id (the actor keeps nothing of it)',
        parameters: [{ ...sessionId, required: true, description: 'The session to end' }],
        responses: {
          200: { description: 'Session ended' },
          400: rpcError('No Mcp-Session-Id'),
          403: refusedOrigin,
          404: rpcError('An Mcp-Session-Id the actor never issues'),
          503: notServing,
        },
      },
    },
  ];
}

/**
 * `/mcp` (`expose_mcp`): the actor as an MCP server over Streamable HTTP, on the SDK's Fetch
 * transport in stateless mode (JSON responses, so a call stays in flight until answered). Every
 * request gets a server and transport of its own, dropped once answered, so no replica holds
 * anything of a session and any replica answers any request. `initialize` answers a fresh
 * `Mcp-Session-Id`, which later requests must carry, which names the chat history of a `chat`
 * call that names no `session_id`, and which says whether the client takes elicitation
 * (`issueMcpSessionId`); `DELETE` has nothing to end. A `chat` call of such a session is answered
 * as an SSE stream, which carries its elicitations; the client's answers, POSTed on their own,
 * go to the call that asked (`McpElicitations`), on this replica. A batch holds at most
 * `MCP_MAX_BATCH` messages, none an `initialize`, and is never empty. It sits behind the API key like `/agent/invoke`, refuses a browser
 * `Origin` that is not the actor's own on every method (403), answers 503 while
 * the actor starts or drains, and refuses bodies over `BODY_LIMIT_BYTES` with 413. Its
 * problem+json refusals reach an MCP client as JSON-RPC errors (`mcpRefusalsAsJsonRpc`). The SDK is
 * imported at start, so an actor without it refuses to start.
 */
export function mcpRouter(options: McpRouterOptions): ActorRouter {
  let sdk: McpServerSdk | undefined;
  return {
    name: 'mcp',
    async start() {
      sdk ??= await loadMcpServerSdk(options.importSdk);
    },
    operations: (ctx) => mcpOperations(sdk, ctx.environment.MCP_MAX_BATCH),
    mountBeforeAuth(app) {
      app.use('/mcp', mcpRefusalsAsJsonRpc());
    },
    mount(app, ctx: ActorContext) {
      const maxSize = ctx.config.bodyLimitBytes;
      const { MCP_MAX_BATCH: maxBatch } = ctx.environment;

      const calls = new McpCallsInFlight();
      const elicitations = new McpElicitations();

      const answer = async (
        c: Context<ActorEnv>,
        loaded: McpServerSdk,
        body: unknown,
        sessionId: string,
        tenantId: string,
      ): Promise<Response> => {
        const messages: readonly unknown[] = Array.isArray(body) ? body : [body];
        const elicits = sessionElicits(sessionId);
        const transport = new loaded.WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          // An SSE stream carries the notifications and elicitations before the result.
          enableJsonResponse: !messages.some((message) => chatCallSendsFirst(message, elicits)),
        });
        const server = createMcpActorServer(loaded, ctx, { tools: options.tools, calls, elicitations });
        calls.cancelNotified({ tenantId, sessionId }, messages);
        const authInfo = asAuthInfo({
          requestId: c.env.requestId,
          tenantId,
          sessionId,
          elicits,
          signal: c.req.raw.signal,
          keepInFlight: c.env.keepInFlight,
        });
        let response: Response;
        try {
          await server.connect(transport);
          screenMcpRequests(loaded, transport);
          response = await transport.handleRequest(c.req.raw, { authInfo, parsedBody: body });
        } catch (error) {
          await server.close();
          throw error;
        }
        if (response.body === null || !response.headers.get('Content-Type')?.startsWith('text/event-stream')) {
          await server.close();
          return response;
        }
        // The SSE stream ends once every call of the request is answered; the request stays in flight until then.
        const leave = c.env.keepInFlight();
        const streamed = onStreamEnd(response.body, () => {
          leave();
          server.close().catch(() => {});
        });
        return new Response(streamed, { status: response.status, headers: response.headers });
      };

      app.use(
        '/mcp',
        refuseForeignOrigin({ trustForwardedHost: ctx.config.platformMode }),
        limitRequestBody({
          maxSize,
          onError: (c) =>
            jsonRpcError(c, 413, -32000, `Request body exceeds the ${maxSize}-byte limit (BODY_LIMIT_BYTES)`),
        }),
      );
      // No server-initiated messages: the optional GET stream is not offered (the specification allows its 405, answered before auth like every other method a path does not have).
      app.on(['POST', 'DELETE'], '/mcp', async function mcp(c: Context<ActorEnv>): Promise<Response> {
        // While draining, a POST may still carry a client's answers to the elicitations of calls in flight, taken below.
        if (c.req.method !== 'POST' || ctx.lifecycle.phase !== 'draining') refuseWhenNotServing(ctx.lifecycle);
        if (sdk === undefined) throw new Error('The /mcp router was not started');
        const sessionId = c.req.header('Mcp-Session-Id');
        if (sessionId !== undefined && !v.is(SessionId, sessionId))
          return jsonRpcError(
            c,
            404,
            -32001,
            'Session not found: this actor never issues such an Mcp-Session-Id; initialize a new session',
          );
        if (c.req.method === 'DELETE') {
          if (sessionId === undefined) return withoutSessionId(c);
          return c.body(null, 200);
        }
        let body: unknown;
        try {
          body = JSON.parse(await readBodyText(c));
        } catch (error) {
          if (error instanceof ActorError) throw error;
          return jsonRpcError(c, 400, -32700, 'Parse error: Invalid JSON');
        }
        const messages = Array.isArray(body) ? body : [body];
        const refusedBatch = Array.isArray(body) ? batchProblem(body) : undefined;
        if (refusedBatch !== undefined) return jsonRpcError(c, 400, -32600, refusedBatch);
        if (messages.length > maxBatch)
          return jsonRpcError(
            c,
            400,
            -32600,
            `Invalid Request: a batch holds at most ${maxBatch} messages (MCP_MAX_BATCH=${maxBatch}), got ${messages.length}`,
          );
        const tenantId = headerTenant(c.req.header('X-Tenant-Id')) ?? DEFAULT_TENANT;
        if (!messages.some(isInitialize)) {
          if (sessionId === undefined) return withoutSessionId(c);
          // The client's answers to this instance's elicitations go to the calls that asked; the rest to a fresh server.
          // Only from a JSON body: any other goes to the SDK's transport, which refuses it (415).
          const json = /^application\/json\b/i.test(c.req.header('Content-Type') ?? '');
          const left = json ? elicitations.deliver({ tenantId, sessionId }, messages) : messages;
          if (left.length === 0 && messages.length > 0) return c.body(null, 202);
          refuseWhenNotServing(ctx.lifecycle);
          return answer(c, sdk, left.length === messages.length ? body : left, sessionId, tenantId);
        }
        refuseWhenNotServing(ctx.lifecycle);
        const issued = issueMcpSessionId(messages.find(isInitialize));
        const response = await answer(c, sdk, body, issued, tenantId);
        if (response.ok) response.headers.set('Mcp-Session-Id', issued);
        return response;
      });
    },
  };
}
