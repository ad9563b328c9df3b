import type { Logger } from '../log/logger.js';
import type { Mutable } from '../core/mutable.js';
import type { ActorTool, ToolRunContext } from './actor-tool.js';
import type { ChatHandler, ChatInput, ChatResult } from '../invoke/chat-handler.js';
import type { ChatRequest } from '../invoke/chat-request.js';
import { noOAuthTokens } from '../core/oauth-token-source.js';
import { endsWaitingForApproval, historyFromMessages, messagesFromHistory } from './chat-history.js';
import { ActorError } from '../core/actor-error.js';
import { runChatLoop, type ChatLoopMetrics, type ChatLoopOptions, type ChatLoopResult } from './chat-loop.js';
import type { ChatMessage, ChatModel } from './chat-model.js';
import { modelAttachments } from './model-attachment.js';
import { createOfflineModel } from './providers/offline.js';
import { NO_TRACER, type ActorTracer, type SpanAttributes } from '../telemetry/actor-tracer.js';
import { GEN_AI, GEN_AI_OPERATIONS, OTHER_GEN_AI_PROVIDER } from '../telemetry/gen-ai-attributes.js';
import { withSpan } from '../telemetry/with-span.js';
import { trustedTurnHistory } from '../store/store-input-validation.js';

/** The model and knobs of one invoke. */
export interface AgentTurnConfig {
  readonly model: ChatModel;
  readonly historyLimit: number;
  readonly maxToolSteps: number;
}

/** Options of `createAgentChatHandler`. */
export interface AgentChatHandlerOptions {
  /** Picks the model and knobs for an invoke from the actor's current settings. */
  readonly configure: (settings: Readonly<Record<string, unknown>>) => AgentTurnConfig;
  /** The tools offered to the model, e.g. what a `ToolRegistry` built. */
  readonly tools: () => readonly ActorTool[];
  /** System instructions sent first on every turn. */
  readonly instructions?: string;
  readonly logger: Logger;
  readonly metrics?: ChatLoopMetrics;
  /** Traces each turn as `invoke_agent <agentName>`, around its model and tool calls. */
  readonly tracer?: ActorTracer;
  /** `gen_ai.agent.name` of the turn's span: the actor's slug. */
  readonly agentName?: string;
}

/** The new message of a turn as the model sees it: its text, and for a user message its attachments. */
function incomingMessage(request: ChatRequest): ChatMessage {
  if (request.role === 'system') return { role: 'system', content: request.message };
  const attachments = modelAttachments(request.attachments);
  return attachments.length > 0
    ? { role: 'user', content: request.message, attachments }
    : { role: 'user', content: request.message };
}

/**
 * What the tools of one invoke are told, from what its chat handler was given: the tenant,
 * session, user, request, settings, the abort signal, and the tenant's OAuth tokens (when the
 * input brings no token source, every provider is unknown to the tools).
 */
function toolRunContextOf(input: ChatInput): ToolRunContext {
  const { request, tenantId, requestId, signal, settings, oauthToken } = input;
  return {
    signal,
    tenantId,
    sessionId: request.session_id,
    userIdentifier: request.user_identifier,
    requestId,
    settings,
    oauthToken: oauthToken ?? ((provider) => noOAuthTokens.getAccessToken(tenantId, provider)),
  };
}

/** The first attributes of the turn's `invoke_agent` span. */
function invokeAgentAttributes(model: ChatModel, agentName: string, sessionId: string): SpanAttributes {
  return {
    [GEN_AI.operationName]: GEN_AI_OPERATIONS.invokeAgent,
    [GEN_AI.providerName]: model.provider ?? OTHER_GEN_AI_PROVIDER,
    [GEN_AI.agentName]: agentName,
    [GEN_AI.requestModel]: model.name,
    [GEN_AI.conversationId]: sessionId,
  };
}

/**
 * The agent as a chat handler: runs the chat loop on the session's history the turn read
 * (`ChatInput.history`, at most `historyLimit` of its last messages) and returns the turn's
 * messages (the new message, tool calls and results, the answer) for the turn to store. It
 * never touches the store.
 */
export function createAgentChatHandler(options: AgentChatHandlerOptions): ChatHandler {
  const { logger } = options;
  return async function agentChatHandler(input) {
    const { request, messageId, settings, onEvent, decided } = input;
    const turn = options.configure(settings);
    const earlier = turn.historyLimit > 0 ? (input.history ?? []).slice(-turn.historyLimit) : [];
    if (decided === undefined && endsWaitingForApproval(earlier))
      throw new ActorError('approval_pending', {
        detail:
          'The session waits for a person to approve or deny tool calls: answer them with approvals (the reply that asked lists them) before a new message',
      });
    const incoming = incomingMessage(request);
    const tracer = options.tracer ?? NO_TRACER;
    const agentName = options.agentName ?? 'actor';
    // A turn that continues after approvals brings no new message: the history ends asking for the decided calls.
    const answeredNow = new Set(decided?.map((call) => call.toolCallId));
    const runTurn = () => {
      const messages = messagesFromHistory(earlier, answeredNow);
      if (options.instructions) messages.unshift({ role: 'system', content: options.instructions });
      if (decided === undefined) messages.push(incoming);
      // Assignments, not conditional spreads: each spread builds and copies a throwaway object per turn.
      const loop: Mutable<ChatLoopOptions> = {
        model: turn.model,
        tools: options.tools(),
        maxToolSteps: turn.maxToolSteps,
        messages,
        context: toolRunContextOf(input),
        tracer,
        logger,
      };
      if (onEvent) loop.onEvent = onEvent;
      if (options.metrics) loop.metrics = options.metrics;
      if (decided) loop.decided = decided;
      if (input.runId !== undefined) loop.runId = input.runId;
      return runChatLoop(loop);
    };
    const result = !tracer.enabled
      ? await runTurn()
      : await withSpan(
          tracer,
          `${GEN_AI_OPERATIONS.invokeAgent} ${agentName}`,
          { kind: 'internal', attributes: invokeAgentAttributes(turn.model, agentName, request.session_id) },
          async (span) => {
            const done = await runTurn();
            span.setAttributes({
              [GEN_AI.responseModel]: done.model,
              [GEN_AI.inputTokens]: done.usage.inputTokens,
              [GEN_AI.outputTokens]: done.usage.outputTokens,
              [GEN_AI.finishReasons]: [done.finishReason],
            });
            return done;
          },
        );
    const reply = chatResultOf(result);
    // Built here, valid by construction and handed to nothing else: the group commit (GroupCommit) does not check or copy it again.
    reply.history = trustedTurnHistory(
      historyFromMessages(
        decided === undefined ? [incoming, ...result.added] : result.added,
        new Date().toISOString(),
        messageId,
      ),
    );
    return reply;
  };
}

const offlineModel = createOfflineModel();

/**
 * A stateless chat handler on the offline model: no history, no tools. The default agent of
 * `createActorApp` also answers with the offline model when none is configured, and keeps
 * history and tools; this one is for tests and for actors that want a fixed local reply.
 */
export const offlineChatHandler: ChatHandler = async function offlineChatHandler(input) {
  const { request, onEvent } = input;
  const result = await runChatLoop({
    model: offlineModel,
    tools: [],
    maxToolSteps: 0,
    messages: [incomingMessage(request)],
    context: toolRunContextOf(input),
    ...(onEvent ? { onEvent } : {}),
  });
  return chatResultOf(result);
};

/** The handler's result of one run of the chat loop, without history (the agent adds the turn's). */
function chatResultOf(result: ChatLoopResult): Mutable<ChatResult> {
  const chat: Mutable<ChatResult> = {
    content: result.content,
    toolCalls: result.toolCalls,
    finishReason: result.finishReason,
    usage: result.usage,
    model: result.model,
  };
  if (result.pending !== undefined) chat.pending = result.pending;
  return chat;
}
