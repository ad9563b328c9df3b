import type { ChatReply } from './chat-reply.js';
import type { ChatRequest } from './chat-request.js';
import { ActorError } from '../core/actor-error.js';
import type { TurnServices } from './turn-services.js';
import * as v from 'valibot';

/** The header that makes an invoke idempotent: the route reads it, the turn's decisions and problems name it. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * `Idempotency-Key` values: 1–255 visible ASCII characters. Spaces and tabs around them are
 * admitted because HTTP strips them before the actor reads the header (RFC 9110 §5.5), so the
 * document does not refuse a value the actor takes.
 */
export const IdempotencyKey = v.pipe(
  v.string(),
  v.regex(/^[ \t]*[\x21-\x7e]{1,255}[ \t]*$/, 'must be 1 to 255 visible ASCII characters'),
);

/** What an `Idempotency-Key` decided for an invoke. */
export type IdempotencyDecision =
  /** No key, or the store could not be asked: run the invoke (`unavailable` says which). */
  | { readonly kind: 'run'; readonly unavailable: boolean }
  /**
   * The key is ours now (`key`, tenant-scoped, kept `ttlMs` once completed): run, then
   * `complete` with the reply (unless the turn committed it with its record) or `release` on failure.
   */
  | {
      readonly kind: 'claimed';
      readonly key: string;
      readonly ttlMs: number;
      complete(reply: ChatReply): Promise<void>;
      release(): Promise<void>;
    }
  /** A retry of a completed invoke: send the stored reply again. */
  | { readonly kind: 'replay'; readonly status: number; readonly body: string };

/** `value` as JSON with every object's keys sorted: equal values give equal text, whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A claimed key as the turn sees it: completed with the reply in the turn's own write when it can be. */
export interface IdempotencyClaim {
  /** The tenant-scoped key. */
  readonly key: string;
  /** How long the completed key is kept, in milliseconds. */
  readonly ttlMs: number;
  /** Tells the claim that `reply` was committed with the turn's record: it is not completed again. */
  committed(reply: ChatReply): void;
}

/** The fingerprint of a request: SHA-256 of its canonical JSON, without `stream` (a retry may switch between JSON and a stream). */
export async function requestFingerprint(request: ChatRequest): Promise<string> {
  const { stream: _stream, ...rest } = request;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonicalJson(rest)));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Applies DESIGN §3 to an `Idempotency-Key`, scoped to the tenant: a completed retry replays
 * the stored reply, a retry while the first still runs gets 409 `idempotency_key_in_use`, the
 * same key with another body gets 422 `idempotency_key_reused`. When the store cannot be
 * reached the invoke runs anyway (`unavailable`): answering beats refusing.
 */
export function decideIdempotency(
  ctx: Pick<TurnServices, 'store' | 'config' | 'logger'>,
  header: string | undefined,
  tenantId: string,
  request: ChatRequest,
): IdempotencyDecision | Promise<IdempotencyDecision> {
  // No key, the common case: decided at once, without a promise to wait for.
  return header === undefined ? RUN_WITHOUT_KEY : decideWithKey(ctx, header, tenantId, request);
}

/** The decision for an invoke without `Idempotency-Key`. */
const RUN_WITHOUT_KEY: IdempotencyDecision = Object.freeze({ kind: 'run', unavailable: false });

/** `decideIdempotency` for an invoke that sent `header`. */
async function decideWithKey(
  ctx: Pick<TurnServices, 'store' | 'config' | 'logger'>,
  header: string,
  tenantId: string,
  request: ChatRequest,
): Promise<IdempotencyDecision> {
  if (!v.is(IdempotencyKey, header)) {
    throw new ActorError('invalid_header', {
      detail: `${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 visible ASCII characters`,
    });
  }
  const key = `${tenantId}/${header}`;
  const fingerprint = await requestFingerprint(request);
  let existing: Awaited<ReturnType<TurnServices['store']['claimIdempotencyKey']>>;
  try {
    // A claim whose instance dies mid-invoke frees itself after the invoke deadline; the reply
    // that completes it is kept for the whole TTL.
    existing = await ctx.store.claimIdempotencyKey(key, fingerprint, ctx.config.idempotencyClaimTtlMs);
  } catch (error) {
    ctx.logger.warn('idempotency_unavailable', { error });
    return { kind: 'run', unavailable: true };
  }
  if (existing === null) {
    return {
      kind: 'claimed',
      key,
      ttlMs: ctx.config.idempotencyTtlMs,
      complete: (reply) =>
        ctx.store
          .completeIdempotencyKey(key, 200, JSON.stringify(reply), ctx.config.idempotencyTtlMs)
          .catch((error: unknown) => ctx.logger.warn('idempotency_complete_failed', { error })),
      release: () =>
        ctx.store
          .releaseIdempotencyKey(key)
          .catch((error: unknown) => ctx.logger.warn('idempotency_release_failed', { error })),
    };
  }
  if (existing.fingerprint !== fingerprint) {
    throw new ActorError('idempotency_key_reused', {
      detail: `This ${IDEMPOTENCY_KEY_HEADER} was sent before with another request body; use a new key`,
    });
  }
  if (existing.state === 'running') {
    throw new ActorError('idempotency_key_in_use', {
      detail: `A request with this ${IDEMPOTENCY_KEY_HEADER} is still running; retry later`,
      headers: { 'Retry-After': '1' },
    });
  }
  return { kind: 'replay', status: existing.status, body: existing.body };
}

/**
 * Runs a turn under an idempotency decision: a claimed key is completed with the reply — in the
 * turn's own write when the turn could (`IdempotencyClaim.committed`), else on its own after —
 * or released when the turn fails, so a retry can run again.
 * @param decision what `decideIdempotency` decided (not a replay)
 * @param run the turn, given the claim when there is one
 */
export function runIdempotent(
  decision: Exclude<IdempotencyDecision, { kind: 'replay' }>,
  run: (claim?: IdempotencyClaim) => Promise<ChatReply>,
): Promise<ChatReply> {
  // Without a claim the turn's own promise, not one more async layer around it.
  return decision.kind === 'claimed' ? runClaimed(decision, run) : run();
}

/** `runIdempotent` for a claimed key: completes or releases it. */
async function runClaimed(
  decision: Extract<IdempotencyDecision, { kind: 'claimed' }>,
  run: (claim: IdempotencyClaim) => Promise<ChatReply>,
): Promise<ChatReply> {
  let committed: ChatReply | undefined;
  let reply: ChatReply;
  try {
    reply = await run({ key: decision.key, ttlMs: decision.ttlMs, committed: (done) => void (committed = done) });
  } catch (error) {
    await decision.release();
    throw error;
  }
  if (committed !== reply) await decision.complete(reply);
  return reply;
}
