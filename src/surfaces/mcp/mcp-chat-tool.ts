import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { ActorContext } from '../../context/actor-context.js';
import { answerInvoke } from '../../invoke/answer-invoke.js';
import type { ChatEvent } from '../../invoke/chat-handler.js';
import type { ChatReply } from '../../invoke/chat-reply.js';
import type { RunStatus } from '../../invoke/turn-runs.js';
import { ApprovalsRequest, ChatRequest } from '../../invoke/chat-request.js';
import type { McpRequestContext } from './mcp-request-context.js';

const SESSION_ARGUMENTS = {
  session_id: v.optional(ChatRequest.entries.session_id),
  user_identifier: v.optional(ChatRequest.entries.user_identifier),
};

/** The arguments of the MCP tool `chat` that send a message: the chat request's own fields, so they validate alike. */
export const McpChatArguments = v.strictObject({ message: ChatRequest.entries.message, ...SESSION_ARGUMENTS });

/** Validated arguments of the MCP tool `chat` that send a message. */
export type McpChatArguments = v.InferOutput<typeof McpChatArguments>;

/** The arguments of the MCP tool `chat` that answer the approvals its run waits for: the `approvals` of an invoke, and no message. */
export const McpApprovalsArguments = v.strictObject({
  approvals: ApprovalsRequest.entries.approvals,
  ...SESSION_ARGUMENTS,
});

/** Validated arguments of the MCP tool `chat` that answer approvals. */
export type McpApprovalsArguments = v.InferOutput<typeof McpApprovalsArguments>;

/** The arguments of `chat` as `tools/list` shows them: a message, or the answers to a paused run's approvals. */
const McpChatToolInput = v.strictObject({
  message: v.optional(
    v.pipe(ChatRequest.entries.message, v.description('The message to send; required unless approvals is given')),
  ),
  approvals: v.optional(
    v.pipe(
      ApprovalsRequest.entries.approvals,
      v.description(
        'Instead of a message: the answers to the tool calls a paused run waits for (a result with status awaiting_input lists them), with the same session_id',
      ),
    ),
  ),
  ...SESSION_ARGUMENTS,
});

/**
 * Validates the arguments of a `chat` call as what they are: answers to approvals when they
 * carry `approvals` and no `message` (as an invoke body is told apart), a message otherwise.
 * @param input the call's arguments
 */
export function parseMcpChatArguments(
  input: Record<string, unknown>,
): v.SafeParseResult<typeof McpChatArguments> | v.SafeParseResult<typeof McpApprovalsArguments> {
  if ('approvals' in input && !('message' in input)) return v.safeParse(McpApprovalsArguments, input);
  return v.safeParse(McpChatArguments, input);
}

/** The user an MCP chat or tool call is recorded under when the client names none. */
export const MCP_USER = 'mcp';

/** The tool `chat` as `tools/list` shows it. */
export function mcpChatToolListing(ctx: ActorContext) {
  const { $schema: _ignored, ...inputSchema } = toJsonSchema(McpChatToolInput, {
    typeMode: 'input',
    errorMode: 'ignore',
  }) as Record<string, unknown>;
  return {
    name: 'chat',
    title: `Chat with ${ctx.definition.metadata.name}`,
    description: `Sends one message to ${ctx.definition.metadata.name} and returns its reply. Turns with the same session_id (by default this MCP session) share their history. When a tool call needs a person's approval, the result has status awaiting_input and lists the approvals; answer them by calling chat again with approvals instead of a message.`,
    inputSchema: inputSchema as { type: 'object'; [key: string]: unknown },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  };
}

/** A `notifications/progress` of a `chat` call, as the SDK's `extra.sendNotification` takes it. */
export interface McpProgressNotification {
  readonly method: 'notifications/progress';
  readonly params: { progressToken: string | number; progress: number; message: string };
}

/**
 * What the turn's events become for a `chat` call whose `_meta` carries a `progressToken`: one
 * `notifications/progress` per text delta, its `message` the delta and its `progress` the
 * characters of text so far (so it increases with each one; an empty delta sends nothing).
 * @param progressToken the token the client sent
 * @param send sends one notification (`extra.sendNotification`); its failure is ignored, the reply still comes
 */
export function chatProgress(
  progressToken: string | number,
  send: (notification: McpProgressNotification) => Promise<void>,
): (event: ChatEvent) => void {
  let characters = 0;
  return (event) => {
    if (event.type !== 'text-delta' || event.delta === '') return;
    characters += event.delta.length;
    send({
      method: 'notifications/progress',
      params: { progressToken, progress: characters, message: event.delta },
    }).catch(() => {});
  };
}

/** What a `chat` call adds to its HTTP request's context. */
export interface McpChatCall {
  /** Aborted by the client's `notifications/cancelled` for the call: the run is cancelled. */
  readonly cancelSignal: AbortSignal;
  /** Gets each of the turn's events (`chatProgress`), when the client asked for progress. */
  readonly onEvent?: (event: ChatEvent) => void;
}

/**
 * Runs one chat turn for the MCP tool `chat` (a message, or answers to the approvals the
 * session's run waits for, which continue that run) through the path of `POST /agent/invoke`: the same
 * chat request validation, tenant, stats, history and metrics (`answerInvoke`). The session is
 * the MCP session unless the arguments name one. The call's cancel cancels the run (the request
 * says `on_disconnect: "cancel"`, the MCP client leaving being its cancel); a dropped HTTP
 * connection does only when `RUN_ON_DISCONNECT` is `cancel`, since the MCP specification does
 * not count a disconnection as a cancel.
 * @param ctx the actor's context
 * @param args the validated tool arguments
 * @param request what the HTTP request to `/mcp` carried, its `Mcp-Session-Id` included
 * @param call the call's cancel signal and progress
 * @returns the chat reply (`status: "awaiting_input"` when a tool call waits for approval); for
 * answers to only some of a run's approvals, the run that waits for the rest; an invalid request
 * throws the 422 `ActorError` invoke would answer, answers the run refuses its 404 or 409
 */
export async function runMcpChat(
  ctx: ActorContext,
  args: McpChatArguments | McpApprovalsArguments,
  request: McpRequestContext,
  call: McpChatCall,
): Promise<ChatReply | RunStatus> {
  const session = {
    session_id: args.session_id ?? request.sessionId,
    user_identifier: args.user_identifier ?? MCP_USER,
    on_disconnect: 'cancel' as const,
  };
  // Answers go on from the run's own request, as an invoke's do: this one carries no message.
  const chatRequest: ChatRequest =
    'approvals' in args
      ? { ...session, message: '', role: 'user' }
      : v.parse(ChatRequest, { ...session, message: args.message });
  const disconnectCancels = ctx.config.runs.onDisconnect === 'cancel';
  const answer = await answerInvoke(ctx, {
    request: chatRequest,
    ...('approvals' in args ? { approvals: args.approvals } : {}),
    tenantId: request.tenantId,
    requestId: request.requestId,
    stream: false,
    idempotencyKey: undefined,
    requestSignal: disconnectCancels ? AbortSignal.any([request.signal, call.cancelSignal]) : call.cancelSignal,
    keepInFlight: request.keepInFlight,
    ...(call.onEvent === undefined ? {} : { onEvent: call.onEvent }),
  });
  // Answers to some of the approvals: the run waits for the rest.
  if (answer.kind === 'accepted') return answer.run;
  if (answer.kind !== 'reply')
    throw new Error(`answerInvoke answered ${answer.kind} to a JSON invoke without an idempotency key`);
  return answer.reply;
}
