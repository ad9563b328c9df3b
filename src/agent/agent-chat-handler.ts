import type { Logger } from '../log/logger.js';
import type { Mutable } from '../core/mutable.js';
import type { ActorTool } from './actor-tool.js';
import type { ChatHandler } from '../invoke/chat-handler.js';
import { historyFromMessages, messagesFromHistory } from './chat-history.js';
import { runChatLoop, type ChatLoopMetrics, type ChatLoopOptions } from './chat-loop.js';
import type { ChatModel } from './chat-model.js';
import { incomingMessage } from './incoming-message.js';
import { toolRunContextOf } from './tool-run-context-of.js';
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
    const { request, messageId, settings, onEvent } = input;
    const turn = options.configure(settings);
    const earlier = turn.historyLimit > 0 ? (input.history ?? []).slice(-turn.historyLimit) : [];
    const incoming = incomingMessage(request);
    const tracer = options.tracer ?? NO_TRACER;
    const agentName = options.agentName ?? 'actor';
    const runTurn = () => {
      const messages = messagesFromHistory(earlier);
      if (options.instructions) messages.unshift({ role: 'system', content: options.instructions });
      messages.push(incoming);
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
    return {
      content: result.content,
      toolCalls: result.toolCalls,
      finishReason: result.finishReason,
      usage: result.usage,
      model: result.model,
      // Built here, valid by construction and handed to nothing else: the invocation buffer does not check or copy it again.
      history: trustedTurnHistory(
        historyFromMessages([incoming, ...result.added], new Date().toISOString(), messageId),
      ),
    };
  };
}
