import type { ChatEvent, ChatResult } from '../agent/chat-handler.js';
import type { ChatReply } from '../agent/chat-reply.js';
import type { ChatRequest } from '../agent/chat-request.js';
import type { ActorContext } from '../context/actor-context.js';
import { ActorError, clientClosedError } from '../core/actor-error.js';
import type { StoredMessage } from '../store/store.js';

/** One invoke to answer, JSON or streamed. */
export interface InvokeTurn {
  readonly request: ChatRequest;
  readonly tenantId: string;
  readonly requestId: string;
  /** Aborted when the client goes away or the shutdown gives up waiting. */
  readonly signal: AbortSignal;
  /** The id the reply's message gets (a stream announces it first). */
  readonly messageId: string;
  readonly onEvent?: (event: ChatEvent) => void;
  /** Facts added to the reply's `metadata`. */
  readonly metadata?: Record<string, unknown>;
}

function asActorError(error: unknown, signal: AbortSignal): unknown {
  if (error instanceof ActorError) return error;
  if (signal.aborted) return signal.reason instanceof ActorError ? signal.reason : clientClosedError();
  return error;
}

/**
 * Runs the chat handler for one invoke and counts it exactly once: in the stats (success or
 * error, with tokens and tool calls) and in `actor_invocations_total` /
 * `actor_invoke_duration_seconds` by outcome. The history the handler hands over is stored
 * with the stats record, in one transaction. Resolves to the chat reply; rejects with the
 * handler's error (an abort becomes 499 `client_closed_request` or 503 `draining`).
 * `latency_ms` runs to the handler's answer, before that write.
 */
export async function runInvokeTurn(ctx: ActorContext, turn: InvokeTurn): Promise<ChatReply> {
  const { request, tenantId } = turn;
  const started = performance.now();
  const startedAt = new Date();
  let history: readonly StoredMessage[] | undefined;
  const finish = async (outcome: string, result?: ChatResult) => {
    const latencyMs = Math.round(performance.now() - started);
    const { persisted, historySaved } = await ctx.stats.record({
      tenantId,
      userIdentifier: request.user_identifier,
      sessionId: request.session_id,
      outcome: result ? 'success' : 'error',
      inputTokens: result?.usage.inputTokens ?? 0,
      outputTokens: result?.usage.outputTokens ?? 0,
      toolCalls: result?.toolCalls.length ?? 0,
      latencyMs,
      finishedAt: new Date().toISOString(),
      ...(history === undefined ? {} : { history }),
    });
    ctx.metrics.invocations.inc({ outcome });
    ctx.metrics.invokeDuration.observe({ outcome }, (performance.now() - started) / 1000);
    return { latencyMs, persisted, historySaved };
  };
  let result: ChatResult;
  try {
    result = await ctx.chatHandler({
      request,
      tenantId,
      requestId: turn.requestId,
      signal: turn.signal,
      settings: ctx.settings.values,
      ...(turn.onEvent ? { onEvent: turn.onEvent } : {}),
      deferHistory: (messages) => {
        history = messages;
      },
    });
  } catch (error) {
    const failure = asActorError(error, turn.signal);
    await finish(failure instanceof ActorError ? failure.code : 'error');
    throw failure;
  }
  const { latencyMs, persisted, historySaved } = await finish('success', result);
  const metadata = {
    ...result.metadata,
    ...(historySaved === false ? { history_saved: false } : {}),
    ...turn.metadata,
    ...(persisted ? {} : { stats_deferred: true }),
  };
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
