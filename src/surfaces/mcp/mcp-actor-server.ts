import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { JSONRPCMessage, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import * as v from 'valibot';
import type { ActorTool } from '../../agent/actor-tool.js';
import type { ActorContext } from '../../context/actor-context.js';
import { ActorError } from '../../core/actor-error.js';
import { fieldProblems } from '../../core/validation-problem.js';
import { metadataCard } from '../../routes/actor-info.js';
import { healthBody } from '../../routes/health.js';
import { readStats, statsBody } from '../../routes/stats.js';
import type { McpServerSdk } from './load-mcp-server-sdk.js';
import { watchOAuthTokens } from '../../agent/watch-oauth-tokens.js';
import type { McpCallsInFlight } from './mcp-calls-in-flight.js';
import { awaitingInputResult, type Elicit, elicitApprovals, pendingApprovals } from './mcp-chat-approvals.js';
import {
  chatProgress,
  MCP_USER,
  type McpApprovalsArguments,
  type McpChatArguments,
  type McpChatCall,
  mcpChatToolListing,
  parseMcpChatArguments,
  runMcpChat,
} from './mcp-chat-tool.js';
import type { McpElicitations, McpOutgoingRequest } from './mcp-elicitations.js';
import { requestContextOf, type McpRequestContext } from './mcp-request-context.js';

/** What the SDK gives a request handler besides the request: its signal, `_meta`, `sendNotification`. */
type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** JSON-RPC codes: invalid params, internal error, and the MCP specification's unknown resource. */
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const RESOURCE_NOT_FOUND = -32002;

/**
 * An error the SDK answers as a JSON-RPC error with this code and message as they are (an
 * `McpError` would send its message prefixed with `MCP error <code>:`, and the client prefixes again).
 */
function jsonRpcFailure(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/** What an MCP server of the actor needs besides its context. */
export interface McpActorServerOptions {
  /** The actor's tools now; the read-only ones are offered. */
  readonly tools: () => readonly ActorTool[];
  /** The calls this instance answers now, which a `notifications/cancelled` of a later request aborts. */
  readonly calls: McpCallsInFlight;
  /** The elicitations this instance's calls wait for, which the client answers in a later request. */
  readonly elicitations: McpElicitations;
}

const RESOURCES = [
  {
    uri: 'actor://metadata',
    name: 'metadata',
    title: 'Actor card',
    description: 'The marketplace card (GET /api/actor/metadata)',
  },
  {
    uri: 'actor://health',
    name: 'health',
    title: 'Health',
    description: 'Liveness and the last known database state (GET /health)',
  },
  {
    uri: 'actor://stats',
    name: 'stats',
    title: 'Statistics',
    description: "The calling tenant's invocation statistics (GET /stats/{tenant_id})",
  },
] as const;

/** One line per bad argument, each naming its JSON pointer: `/message is required`. */
function argumentProblems(issues: readonly v.BaseIssue<unknown>[]): string {
  return fieldProblems(issues)
    .map((problem) => `${problem.pointer || '/'} ${problem.detail}`)
    .join('; ');
}

/** A tool's output as MCP content: text always, and the object itself as structured content. */
function toolResult(output: unknown) {
  const text = typeof output === 'string' ? output : (JSON.stringify(output) ?? '');
  const structured =
    typeof output === 'object' && output !== null && !Array.isArray(output)
      ? { structuredContent: output as Record<string, unknown> }
      : {};
  return { content: [{ type: 'text' as const, text }], ...structured };
}

/** A failed call the client's model may read and act on (MCP's tool execution error, which also carries input validation errors). */
function toolError(message: string) {
  return { content: [{ type: 'text' as const, text: message }], isError: true };
}

async function readResource(ctx: ActorContext, uri: string, request: McpRequestContext): Promise<unknown> {
  if (uri === 'actor://metadata') return metadataCard(ctx);
  if (uri === 'actor://health') return healthBody(ctx);
  if (uri === 'actor://stats') {
    const snapshot = await readStats(ctx, request.tenantId);
    return { scope: 'tenant', tenant_id: request.tenantId, instance_id: ctx.config.instanceId, ...statsBody(snapshot) };
  }
  return undefined;
}

/**
 * Runs a `chat` call to its end: while its run waits for approvals, asks the person through
 * `elicit` (a client that takes elicitation) and continues the run with the answers; returns
 * the final reply as the tool result, or the pending approvals (`awaitingInputResult`) when
 * there is no `elicit` or the client cannot answer.
 * @param ctx the actor's context
 * @param args the validated arguments: a message, or answers
 * @param request what the HTTP request to `/mcp` carried
 * @param call the call's cancel signal and progress
 * @param elicit sends one `elicitation/create` on the call's stream; undefined for a client without elicitation
 */
async function chatThroughApprovals(
  ctx: ActorContext,
  args: McpChatArguments | McpApprovalsArguments,
  request: McpRequestContext,
  call: McpChatCall,
  elicit: Elicit | undefined,
) {
  for (let answered = args; ; ) {
    const reply = await runMcpChat(ctx, answered, request, call);
    const asked = 'approvals' in answered ? answered.approvals.map((answer) => answer.id) : [];
    if (!('state' in reply) && reply.status !== 'awaiting_input')
      return {
        content: [{ type: 'text' as const, text: reply.message.content }],
        structuredContent: reply as unknown as Record<string, unknown>,
      };
    const answers =
      elicit === undefined
        ? undefined
        : await elicitApprovals(ctx.definition.metadata.name, pendingApprovals(reply, asked), elicit, (error) =>
            ctx.logger.warn('mcp_elicitation_failed', { run_id: reply.id, error: error.message }),
          );
    if (answers === undefined) return awaitingInputResult(reply, asked);
    const { user_identifier } = answered;
    answered = {
      approvals: answers,
      session_id: reply.session_id,
      ...(user_identifier === undefined ? {} : { user_identifier }),
    };
  }
}

/**
 * Builds the MCP server that answers one request to `/mcp`: the tool `chat`, the actor's read-only domain tools
 * (annotated `readOnlyHint`) with their JSON Schemas, and the resources `actor://metadata`,
 * `actor://health` and `actor://stats`. Arguments that fail the tool's schema are a tool result
 * with `isError` naming each failing JSON pointer, as the 2025-11-25 specification asks of input
 * validation errors, so the model can correct them; an unknown tool is JSON-RPC -32602 (a
 * protocol error; params the SDK's schemas refuse, arguments that are not an object or hold a
 * prototype key, never get here: see `screenMcpRequests`); an unknown resource is -32002; a turn
 * or tool that fails is a tool result with `isError`. A `chat` call whose `_meta` carries a
 * `progressToken` sends `notifications/progress` as its text comes (`chatProgress`); a
 * `notifications/cancelled` for a call, in a later request (`McpCallsInFlight`), aborts it and
 * cancels a chat's run. A `chat` whose run pauses for approvals asks the person through
 * `elicitation/create`, one call after another, when the session's client takes elicitation, and
 * goes on with the answers (`elicitApprovals`); otherwise, or when the client cannot answer, its
 * result lists the pending approvals (`awaitingInputResult`), which a `chat` with `approvals` answers.
 * @param sdk the loaded MCP SDK
 * @param ctx the actor's context
 * @param options the tools and the calls in flight
 */
export function createMcpActorServer(sdk: McpServerSdk, ctx: ActorContext, options: McpActorServerOptions): Server {
  const { metadata } = ctx.definition;
  const server = new sdk.Server(
    { name: metadata.slug, title: metadata.name, version: metadata.version },
    { capabilities: { tools: {}, resources: {} }, instructions: metadata.description },
  );
  const readOnlyTools = () => options.tools().filter((tool) => tool.readOnly);
  /** Writes a request to the client on the stream that answers the call `relatedRequestId`. */
  const sendOnCallStream = async (message: McpOutgoingRequest, relatedRequestId: string | number) => {
    if (server.transport === undefined) throw new Error('The MCP server sent a request before it was connected');
    await server.transport.send(message as unknown as JSONRPCMessage, { relatedRequestId });
  };
  const invalidArguments = (tool: string, issues: readonly v.BaseIssue<unknown>[]) =>
    toolError(`Invalid arguments for tool ${tool}: ${argumentProblems(issues)}`);

  server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({
    tools: [
      mcpChatToolListing(ctx),
      ...readOnlyTools().map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.jsonSchema as { type: 'object'; [key: string]: unknown },
        annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: true },
      })),
    ],
  }));

  /** One `tools/call`; `cancelSignal` is aborted by the client's `notifications/cancelled` for it. */
  const callTool = async (
    params: { name: string; arguments?: Record<string, unknown> },
    extra: HandlerExtra,
    request: McpRequestContext,
    cancelSignal: AbortSignal,
  ) => {
    const signal = AbortSignal.any([request.signal, extra.signal, cancelSignal]);
    const { name, arguments: input = {} } = params;
    if (name === 'chat') {
      const args = parseMcpChatArguments(input);
      if (!args.success) return invalidArguments(name, args.issues);
      const progressToken = extra._meta?.progressToken;
      const call = {
        cancelSignal,
        ...(progressToken === undefined ? {} : { onEvent: chatProgress(progressToken, extra.sendNotification) }),
      };
      const elicit = request.elicits
        ? (params: Record<string, unknown>) =>
            options.elicitations.ask(
              request,
              (message) => sendOnCallStream(message, extra.requestId),
              'elicitation/create',
              params,
              signal,
            )
        : undefined;
      try {
        return await chatThroughApprovals(ctx, args.output, request, call, elicit);
      } catch (error) {
        if (error instanceof v.ValiError) return invalidArguments(name, error.issues);
        if (error instanceof ActorError)
          return toolError(`${error.title}: ${error.detail === undefined ? '' : `${error.detail} `}(${error.code})`);
        throw error;
      }
    }
    const tool = readOnlyTools().find((candidate) => candidate.name === name);
    if (tool === undefined) throw jsonRpcFailure(INVALID_PARAMS, `Unknown tool: ${name}`);
    const args = v.safeParse(tool.argsSchema, input);
    if (!args.success) return invalidArguments(name, args.issues);
    const watched = watchOAuthTokens({
      signal,
      tenantId: request.tenantId,
      sessionId: request.sessionId,
      userIdentifier: MCP_USER,
      requestId: request.requestId,
      settings: ctx.settings.values,
      oauthToken: (provider) => ctx.oauthTokens.getAccessToken(request.tenantId, provider),
    });
    try {
      return toolResult(await tool.runAsync(args.output, watched.context));
    } catch (error) {
      const message = watched.redact(
        error instanceof ActorError
          ? `${error.detail ?? error.title} (${error.code})`
          : String((error as Error)?.message ?? error),
      );
      ctx.logger.warn('mcp_tool_failed', { tool: name, error: message });
      return toolError(`Tool ${name} failed: ${message}`);
    }
  };

  server.setRequestHandler(sdk.CallToolRequestSchema, async (call, extra) => {
    const request = requestContextOf(extra.authInfo);
    const inFlight = options.calls.begin(request, extra.requestId);
    try {
      return await callTool(call.params, extra, request, inFlight.signal);
    } finally {
      inFlight.end();
    }
  });

  server.setRequestHandler(sdk.ListResourcesRequestSchema, () => ({
    resources: RESOURCES.map((resource) => ({ ...resource, mimeType: 'application/json' })),
  }));

  server.setRequestHandler(sdk.ReadResourceRequestSchema, async (read, extra) => {
    const { uri } = read.params;
    let body: unknown;
    try {
      body = await readResource(ctx, uri, requestContextOf(extra.authInfo));
    } catch (error) {
      if (error instanceof ActorError)
        throw jsonRpcFailure(INTERNAL_ERROR, `${error.title}: ${error.detail ?? error.code}`);
      throw error;
    }
    if (body === undefined) throw jsonRpcFailure(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(body) }] };
  });

  return server;
}
