import { ActorError, clientClosedError } from '../core/actor-error.js';
import type { ChatEvent, ChatResult } from './chat-handler.js';
import type { ChatReply } from './chat-reply.js';
import { recordTurn, type TurnFacts } from './record-turn.js';
import type { TurnServices } from './turn-services.js';

/** One invoke to answer, JSON or streamed. */
export interface Turn extends Omit<TurnFacts, 'startedMs'> {
  /** Aborted when the client goes away or the shutdown gives up waiting. */
  readonly signal: AbortSignal;
  /** The id the reply's message gets (a stream announces it first). */
  readonly messageId: string;
  readonly onEvent?: (event: ChatEvent) => void;
}

function asActorError(error: unknown, signal: AbortSignal): unknown {
  if (error instanceof ActorError) return error;
  if (signal.aborted) return signal.reason instanceof ActorError ? signal.reason : clientClosedError();
  return error;
}

/**
 * Runs the chat handler for one invoke, has `recordTurn` count it exactly once (success or
 * error), and wraps the result into the chat reply. Rejects with the handler's error (an abort
 * becomes 499 `client_closed_request` or 503 `draining`).
 */
export async function runTurn(services: TurnServices, turn: Turn): Promise<ChatReply> {
  const { request } = turn;
  const facts: TurnFacts = { ...turn, startedMs: performance.now() };
  const startedAt = new Date();
  let result: ChatResult;
  try {
    result = await services.chatHandler({
      request,
      tenantId: turn.tenantId,
      requestId: turn.requestId,
      messageId: turn.messageId,
      signal: turn.signal,
      settings: services.settings.values,
      oauthToken: (provider) => services.oauthTokens.getAccessToken(turn.tenantId, provider),
      ...(turn.onEvent ? { onEvent: turn.onEvent } : {}),
    });
  } catch (error) {
    const failure = asActorError(error, turn.signal);
    await recordTurn(services, facts, { failure: failure instanceof ActorError ? failure.code : 'error' });
    throw failure;
  }
  const { latencyMs, metadata } = await recordTurn(services, facts, { result });
  return {
    id: `inv_${crypto.randomUUID()}`,
    session_id: request.session_id,
    status: 'completed',
    message: { id: turn.messageId, role: 'assistant', content: result.content },
    tool_calls: [...result.toolCalls],
    finish_reason: result.finishReason,
    usage: {
      input_tokens: result.usage.inputTokens,
      output_tokens: result.usage.outputTokens,
      total_tokens: result.usage.inputTokens + result.usage.outputTokens,
    },
    model: result.model,
    created_at: startedAt.toISOString(),
    latency_ms: latencyMs,
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}
