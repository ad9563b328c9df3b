import { ActorError, clientClosedError } from '../core/actor-error.js';
import type { Mutable } from '../core/mutable.js';
import type { StoredMessage, TurnToSave } from '../store/store.js';
import type { ChatEvent, ChatInput, ChatResult } from './chat-handler.js';
import type { ChatReply, ToolCallRecord } from './chat-reply.js';
import type { ChatRequest } from './chat-request.js';
import type { IdempotencyClaim } from './idempotency.js';
import type { TurnServices } from './turn-services.js';

/** The facts of one invoke that outlive its answer. */
interface TurnFacts {
  readonly request: ChatRequest;
  readonly tenantId: string;
  readonly requestId: string;
  /** Whether the reply is streamed (for the log line). */
  readonly stream: boolean;
  /** The idempotency store could not be asked: the reply says `idempotency_unavailable: true`. */
  readonly idempotencyUnavailable: boolean;
  /** `performance.now()` when the turn started. */
  readonly startedMs: number;
  /** False when the turn could not read the session's history: the reply says `history_loaded: false`. */
  readonly historyLoaded: boolean;
}

/** How a turn ended: the handler's result, or the code of the error it failed with. */
type TurnEnd = { readonly result: ChatResult } | { readonly failure: string };

/** What recording a turn tells its reply. */
interface RecordedTurn {
  /** From the turn's start to the handler's answer, before the stats write. */
  readonly latencyMs: number;
  /** The reply's `metadata`: the handler's own facts, then every flag of the turn. */
  readonly metadata: Record<string, unknown>;
  /** The reply committed with the record, completing the claim (see `TurnCommit`); absent when none was. */
  readonly reply?: ChatReply;
}

/**
 * A claimed `Idempotency-Key` to complete in the turn's own write: the reply is built before
 * the write as it will be when the write succeeds, and stored with the record. When the write
 * turns out otherwise (deferred, history not saved), that reply is not the one sent, and the
 * claim is completed after, on its own, with the reply sent.
 */
interface TurnCommit {
  readonly claim: IdempotencyClaim;
  /** Builds the reply from what recording the turn tells it. */
  readonly reply: (recorded: RecordedTurn) => ChatReply;
}

/** The keys of a tool call's arguments, never their values. */
function argumentKeys(call: ToolCallRecord): string[] {
  const args = call.arguments;
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? Object.keys(args) : [];
}

/** The fields of the `invoke_finished` line, in their order (`model` only when the handler answered). */
function finishedLine(
  facts: TurnFacts,
  outcome: string,
  result: ChatResult | undefined,
  latencyMs: number,
): Record<string, unknown> {
  const line: Record<string, unknown> = {
    request_id: facts.requestId,
    tenant_id: facts.tenantId,
    session_id: facts.request.session_id,
    outcome,
  };
  if (result) line.model = result.model;
  line.stream = facts.stream;
  line.tool_calls = result === undefined ? [] : result.toolCalls.map((call) => call.name);
  line.input_tokens = result?.usage.inputTokens ?? 0;
  line.output_tokens = result?.usage.outputTokens ?? 0;
  line.latency_ms = latencyMs;
  return line;
}

/**
 * Records a finished turn, the one place that does: saves it in one call
 * (`services.turns.saveTurn`: its stats counted once, the messages the handler returned and its
 * idempotency completion in the same transaction), counts it in `actor_invocations_total` and
 * `actor_invoke_duration_seconds` by outcome; builds every metadata flag of the reply
 * (`history_loaded`, `history_saved`, `idempotency_unavailable`, `stats_deferred`); and writes
 * one `invoke_finished` log line at info — tenant, session, outcome, model, tool calls by name,
 * tokens, latency, request id, never the message text. At debug, `invoke_tool_arguments` adds
 * the keys (not the values) of each tool call's arguments.
 */
async function recordTurn(
  services: TurnServices,
  facts: TurnFacts,
  end: TurnEnd,
  commit?: TurnCommit,
): Promise<RecordedTurn> {
  const { request, tenantId } = facts;
  const result = 'result' in end ? end.result : undefined;
  const outcome = result ? 'success' : (end as { failure: string }).failure;
  const latencyMs = Math.round(performance.now() - facts.startedMs);
  const metadataOf = (persisted: boolean, historySaved: boolean | undefined): Record<string, unknown> => {
    const metadata: Record<string, unknown> = result?.metadata === undefined ? {} : { ...result.metadata };
    if (!facts.historyLoaded || result?.historyLoaded === false) metadata.history_loaded = false;
    if (historySaved === false) metadata.history_saved = false;
    if (facts.idempotencyUnavailable) metadata.idempotency_unavailable = true;
    if (!persisted) metadata.stats_deferred = true;
    return metadata;
  };
  const expected = result && commit ? commit.reply({ latencyMs, metadata: metadataOf(true, true) }) : undefined;
  // Plain assignments, not conditional spreads: each spread builds and copies a throwaway object.
  const turn: Mutable<TurnToSave> = {
    tenantId,
    userIdentifier: request.user_identifier,
    sessionId: request.session_id,
    outcome: result ? 'success' : 'error',
    inputTokens: result?.usage.inputTokens ?? 0,
    outputTokens: result?.usage.outputTokens ?? 0,
    toolCalls: result?.toolCalls.length ?? 0,
    latencyMs,
    finishedAt: new Date().toISOString(),
  };
  if (result?.history !== undefined) turn.history = result.history;
  if (expected && commit)
    turn.idempotency = {
      key: commit.claim.key,
      status: 200,
      body: JSON.stringify(expected),
      ttlMs: commit.claim.ttlMs,
    };
  const { persisted, historySaved, idempotencyCompleted } = await services.turns.saveTurn(turn);
  services.metrics.invocations.inc({ outcome });
  services.metrics.invokeDuration.observe({ outcome }, (performance.now() - facts.startedMs) / 1000);
  const toolCalls = result?.toolCalls ?? [];
  if (toolCalls.length > 0) {
    services.logger.debug('invoke_tool_arguments', {
      request_id: facts.requestId,
      tool_calls: toolCalls.map((call) => ({ name: call.name, argument_keys: argumentKeys(call) })),
    });
  }
  services.logger.info('invoke_finished', finishedLine(facts, outcome, result, latencyMs));
  const metadata = metadataOf(persisted, historySaved);
  // The reply stored with the record is the one to send only when the write went as expected.
  if (expected && commit && idempotencyCompleted && persisted && historySaved !== false) {
    commit.claim.committed(expected);
    return { latencyMs, metadata, reply: expected };
  }
  return { latencyMs, metadata };
}

/** One invoke to answer, JSON or streamed. */
export interface Turn extends Omit<TurnFacts, 'startedMs' | 'historyLoaded'> {
  /** The invocation id (the run's), which the reply carries as `id`. */
  readonly id: string;
  /** Aborted when the client goes away or the shutdown gives up waiting. */
  readonly signal: AbortSignal;
  /** The id the reply's message gets (a stream announces it first). */
  readonly messageId: string;
  readonly onEvent?: (event: ChatEvent) => void;
  /** The claimed `Idempotency-Key`, completed with the reply in the turn's own write when it can be. */
  readonly claim?: IdempotencyClaim;
  /** The decided calls a turn that continues a run after approvals runs first (`ChatInput.decided`). */
  readonly decided?: ChatInput['decided'];
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
 * on it, has `recordTurn` save the turn exactly once (success or error) with the messages the
 * handler returned, in one call, and wraps the result into the chat reply. Rejects with the
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
      runId: turn.id,
      signal: turn.signal,
      settings,
      history: session.messages,
      oauthToken: (provider) => services.oauthTokens.getAccessToken(turn.tenantId, provider),
    };
    if (turn.onEvent) input.onEvent = turn.onEvent;
    if (turn.decided) input.decided = turn.decided;
    result = await services.chatHandler(input);
  } catch (error) {
    const failure = asActorError(error, turn.signal);
    await recordTurn(services, facts, { failure: failure instanceof ActorError ? failure.code : 'error' });
    throw failure;
  }
  const { id } = turn;
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
    if (result.pending !== undefined && result.pending.length > 0) {
      built.status = 'awaiting_input';
      built.approvals = result.pending.map((call) => ({
        id: call.approvalId,
        tool_call_id: call.toolCallId,
        tool: call.name,
        arguments: call.arguments,
      }));
    }
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
