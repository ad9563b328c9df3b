import { ActorError, clientClosedError } from '../core/actor-error.js';
import type { Mutable } from '../core/mutable.js';
import type { StoredMessage } from '../store/store.js';
import type { ChatEvent, ChatInput, ChatResult } from './chat-handler.js';
import type { ChatReply } from './chat-reply.js';
import type { IdempotencyClaim } from './idempotency.js';
import { recordTurn, type RecordedTurn, type TurnFacts } from './record-turn.js';
import type { TurnServices } from './turn-services.js';

/** One invoke to answer, JSON or streamed. */
export interface Turn extends Omit<TurnFacts, 'startedMs' | 'historyLoaded'> {
  /** Aborted when the client goes away or the shutdown gives up waiting. */
  readonly signal: AbortSignal;
  /** The id the reply's message gets (a stream announces it first). */
  readonly messageId: string;
  readonly onEvent?: (event: ChatEvent) => void;
  /** The claimed `Idempotency-Key`, completed with the reply in the turn's own write when it can be. */
  readonly claim?: IdempotencyClaim;
}

function asActorError(error: unknown, signal: AbortSignal): unknown {
  if (error instanceof ActorError) return error;
  if (signal.aborted) return signal.reason instanceof ActorError ? signal.reason : clientClosedError();
  return error;
}

/**
 * The session's last `limit` messages, read once for the turn; none, and `loaded: false`, when
 * the store cannot answer (logged as `history_read_failed`): the turn answers without them.
 */
async function readSession(
  services: TurnServices,
  turn: Turn,
  limit: number,
): Promise<{ readonly messages: readonly StoredMessage[]; readonly loaded: boolean }> {
  if (limit <= 0) return { messages: [], loaded: true };
  try {
    return { messages: await services.store.loadHistory(turn.tenantId, turn.request.session_id, limit), loaded: true };
  } catch (error) {
    services.logger.warn('history_read_failed', { request_id: turn.requestId, error });
    return { messages: [], loaded: false };
  }
}

/**
 * Runs one invoke, owning its session: reads the session's history once, runs the chat handler
 * on it, has `recordTurn` count the turn exactly once (success or error) with the messages the
 * handler returned, in one write, and wraps the result into the chat reply. Rejects with the
 * handler's error (an abort becomes 499 `client_closed_request` or 503 `draining`).
 */
export async function runTurn(services: TurnServices, turn: Turn): Promise<ChatReply> {
  const { request } = turn;
  const startedMs = performance.now();
  const startedAt = new Date();
  const settings = services.settings.values;
  const session = await readSession(services, turn, services.historyLimit(settings));
  const facts: TurnFacts = { ...turn, startedMs, historyLoaded: session.loaded };
  let result: ChatResult;
  try {
    const input: Mutable<ChatInput> = {
      request,
      tenantId: turn.tenantId,
      requestId: turn.requestId,
      messageId: turn.messageId,
      signal: turn.signal,
      settings,
      history: session.messages,
      oauthToken: (provider) => services.oauthTokens.getAccessToken(turn.tenantId, provider),
    };
    if (turn.onEvent) input.onEvent = turn.onEvent;
    result = await services.chatHandler(input);
  } catch (error) {
    const failure = asActorError(error, turn.signal);
    await recordTurn(services, facts, { failure: failure instanceof ActorError ? failure.code : 'error' });
    throw failure;
  }
  const id = `inv_${crypto.randomUUID()}`;
  const reply = ({ latencyMs, metadata }: RecordedTurn): ChatReply => {
    const built: Mutable<ChatReply> = {
      id,
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
    };
    // Assigned, not a conditional spread, which builds and copies a throwaway object each reply.
    if (Object.keys(metadata).length > 0) built.metadata = metadata;
    return built;
  };
  const recorded = await recordTurn(
    services,
    facts,
    { result },
    turn.claim === undefined ? undefined : { claim: turn.claim, reply },
  );
  return recorded.reply ?? reply(recorded);
}
