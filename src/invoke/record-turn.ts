import type { ChatReply, ToolCallRecord } from './chat-reply.js';
import type { Mutable } from '../core/mutable.js';
import type { IdempotencyClaim } from './idempotency.js';
import type { ChatRequest } from './chat-request.js';
import type { ChatResult } from './chat-handler.js';
import type { TurnServices } from './turn-services.js';
import type { InvocationRecord } from '../store/store.js';

/** The facts of one invoke that outlive its answer. */
export interface TurnFacts {
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
export type TurnEnd = { readonly result: ChatResult } | { readonly failure: string };

/** What recording a turn tells its reply. */
export interface RecordedTurn {
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
export interface TurnCommit {
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
 * Records a finished turn, the one place that does: counts it once in the stats (with the
 * history the handler returned, in the same transaction), in `actor_invocations_total` and
 * `actor_invoke_duration_seconds` by outcome; builds every metadata flag of the reply
 * (`history_loaded`, `history_saved`, `idempotency_unavailable`, `stats_deferred`); and writes
 * one `invoke_finished` log line at info — tenant, session, outcome, model, tool calls by name,
 * tokens, latency, request id, never the message text. At debug, `invoke_tool_arguments` adds
 * the keys (not the values) of each tool call's arguments.
 */
export async function recordTurn(
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
  const record: Mutable<InvocationRecord> = {
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
  if (result?.history !== undefined) record.history = result.history;
  if (expected && commit)
    record.idempotency = {
      key: commit.claim.key,
      status: 200,
      body: JSON.stringify(expected),
      ttlMs: commit.claim.ttlMs,
    };
  const { persisted, historySaved, idempotencyCompleted } = await services.stats.record(record);
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
