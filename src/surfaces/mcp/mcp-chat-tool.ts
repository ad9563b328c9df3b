import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { ActorContext } from '../../context/actor-context.js';
import { answerInvoke } from '../../invoke/answer-invoke.js';
import type { ChatReply } from '../../invoke/chat-reply.js';
import { ChatRequest } from '../../invoke/chat-request.js';
import type { McpRequestContext } from './mcp-request-context.js';

/** The arguments of the MCP tool `chat`: the chat request's own fields, so they validate alike. */
export const McpChatArguments = v.strictObject({
  message: ChatRequest.entries.message,
  session_id: v.optional(ChatRequest.entries.session_id),
  user_identifier: v.optional(ChatRequest.entries.user_identifier),
});

/** Validated arguments of the MCP tool `chat`. */
export type McpChatArguments = v.InferOutput<typeof McpChatArguments>;

/** The user an MCP chat or tool call is recorded under when the client names none. */
export const MCP_USER = 'mcp';

/** The tool `chat` as `tools/list` shows it. */
export function mcpChatToolListing(ctx: ActorContext) {
  const { $schema: _ignored, ...inputSchema } = toJsonSchema(McpChatArguments, {
    typeMode: 'input',
    errorMode: 'ignore',
  }) as Record<string, unknown>;
  return {
    name: 'chat',
    title: `Chat with ${ctx.definition.metadata.name}`,
    description: `Sends one message to ${ctx.definition.metadata.name} and returns its reply. Turns with the same session_id (by default this MCP session) share their history.`,
    inputSchema: inputSchema as { type: 'object'; [key: string]: unknown },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  };
}

/**
 * Runs one chat turn for the MCP tool `chat` through the path of `POST /agent/invoke`: the same
 * chat request validation, tenant, stats, history and metrics (`answerInvoke`). The session is
 * the MCP session unless the arguments name one.
 * @param ctx the actor's context
 * @param args the validated tool arguments
 * @param request what the HTTP request to `/mcp` carried, its `Mcp-Session-Id` included
 * @returns the chat reply; an invalid request throws the 422 `ActorError` invoke would answer
 */
export async function runMcpChat(
  ctx: ActorContext,
  args: McpChatArguments,
  request: McpRequestContext,
): Promise<ChatReply> {
  const chatRequest = v.parse(ChatRequest, {
    message: args.message,
    session_id: args.session_id ?? request.sessionId,
    user_identifier: args.user_identifier ?? MCP_USER,
  });
  const answer = await answerInvoke(ctx, {
    request: chatRequest,
    tenantId: request.tenantId,
    requestId: request.requestId,
    stream: false,
    idempotencyKey: undefined,
    requestSignal: request.signal,
    keepInFlight: request.keepInFlight,
  });
  if (answer.kind !== 'reply')
    throw new Error(`answerInvoke answered ${answer.kind} to a JSON invoke without an idempotency key`);
  return answer.reply;
}
