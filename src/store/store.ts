/**
 * Everything an actor keeps between requests and restarts, in five narrow parts — sessions
 * (history and stats), idempotency keys, settings overrides, OAuth, runs — each used on its own by
 * the code that needs it. Implementations: SQLite (the default), PostgreSQL, and an in-memory
 * double for tests; a new backend proves itself with `describeStoreContract` from
 * `actorkit/testing`. These five parts are all a backend implements: group commit, the outage
 * queue and retries are one wrapper over any store's sessions (`GroupCommit`). Every method may
 * reject when the database is unreachable; callers decide what to do with that.
 */
export interface Store extends SessionStore, IdempotencyStore, SettingsStore, OAuthStore, RunStore {
  /** `sqlite`, `postgres` or `memory`: shown in `/health`. */
  readonly kind: string;
  /** Creates or upgrades the tables; idempotent, safe to run from several replicas at once. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /** Flushes and closes connections. */
  close(): Promise<void>;
}

/**
 * One finished turn to save, in one call (`SessionStore.saveTurns`): its stats facts (who, what
 * it cost, how it ended), its messages and its idempotency completion. The store counts it,
 * appends its messages and completes its key in one transaction, or does none of it.
 */
export interface TurnToSave {
  /**
   * Identifies the turn so that a retried save counts it once (a save whose reply was lost
   * may have committed). `GroupCommit` always sets one; without it, every call counts.
   */
  readonly id?: string;
  readonly tenantId: string;
  readonly userIdentifier: string;
  readonly sessionId: string;
  /** `success` counts as an invocation; `error` counts as an invocation and an error. */
  readonly outcome: 'success' | 'error';
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly toolCalls: number;
  readonly latencyMs: number;
  /** When the invoke finished (ISO 8601). */
  readonly finishedAt: string;
  /**
   * The turn's messages, appended to the session's history in the same transaction that counts
   * the turn, and only when it counts it: a retried turn's messages are not appended twice.
   */
  readonly history?: readonly StoredMessage[];
  /**
   * Completes the turn's claimed `Idempotency-Key` with its reply in the same transaction, and
   * only when it counts the turn; a key not claimed (any more) is left as it is.
   */
  readonly idempotency?: IdempotencyCompletion;
}

/** The counters behind `GET /stats` and `GET /stats/{tenant_id}`. */
export interface StatsSnapshot {
  /** When counting started: the earliest turn counted, or when the store was created. */
  readonly since: string;
  readonly invocations: number;
  readonly errors: number;
  readonly sessions: number;
  readonly users: number;
  readonly tenants: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly toolCalls: number;
  readonly latencyMsTotal: number;
  readonly latencyMsMax: number;
  readonly lastInvokedAt: string | null;
}

/** One message of a session's history. */
export interface StoredMessage {
  readonly id: string;
  readonly role: 'user' | 'assistant' | 'system' | 'tool';
  readonly content: string;
  /** Tool calls of an assistant message, or the call a tool message answers (JSON-serialisable). */
  readonly data?: unknown;
  readonly createdAt: string;
}

/**
 * The sessions part of a store: what a turn reads (the session's history) and saves (its
 * messages, stats and idempotency completion, in one call), and the counters behind `/stats`.
 * Group commit, outage queue and retries are not its business: `GroupCommit` wraps any
 * `SessionStore` for them. Every method may reject when the database is unreachable.
 */
export interface SessionStore {
  /**
   * Saves finished turns in one transaction: counts each turn exactly once (a turn whose `id`
   * was counted before, by this call or an earlier one, is skipped), appends the `history` of
   * each turn it counts and completes its `idempotency` key; all of it or, on a failure, none.
   */
  saveTurns(turns: readonly TurnToSave[]): Promise<void>;
  /** Counters for all tenants, or for one tenant (zeros for a tenant never seen). */
  readStats(tenantId?: string): Promise<StatsSnapshot>;
  /** Appends messages to a session's history, in order. */
  appendMessages(tenantId: string, sessionId: string, messages: readonly StoredMessage[]): Promise<void>;
  /** The last `limit` messages of a session, oldest first. */
  loadHistory(tenantId: string, sessionId: string, limit: number): Promise<StoredMessage[]>;
}

/** A claimed `Idempotency-Key` completed with its reply, as the turn saves it (`TurnToSave.idempotency`). */
export interface IdempotencyCompletion {
  /** The claimed key (tenant-scoped, as claimed). */
  readonly key: string;
  /** The reply's HTTP status. */
  readonly status: number;
  /** The reply, as sent. */
  readonly body: string;
  /** How long the completed key is kept from the write on, in milliseconds. */
  readonly ttlMs: number;
}

/** The state of an `Idempotency-Key`. */
export type IdempotencyRecord =
  | { readonly state: 'running'; readonly fingerprint: string }
  | { readonly state: 'completed'; readonly fingerprint: string; readonly status: number; readonly body: string };

/** The idempotency part of a store: `Idempotency-Key` claims and the replies they keep, shared by replicas. */
export interface IdempotencyStore {
  /**
   * Claims an idempotency key: returns null when the key was free (it is now `running`),
   * otherwise the existing record. Expired records count as free.
   */
  claimIdempotencyKey(key: string, fingerprint: string, ttlMs: number): Promise<IdempotencyRecord | null>;
  /**
   * Stores the reply of a claimed key; with `ttlMs`, keeps it that long from now (a running
   * claim holds only as long as its invoke may run).
   */
  completeIdempotencyKey(key: string, status: number, body: string, ttlMs?: number): Promise<void>;
  /** Frees a claimed key whose request failed, so a retry may run. */
  releaseIdempotencyKey(key: string): Promise<void>;
}

/** The settings part of a store: the overrides `PUT /settings` saves, shared by replicas. */
export interface SettingsStore {
  /** Settings overrides saved by `PUT /settings`. */
  loadSettingsOverrides(): Promise<Record<string, unknown>>;
  /**
   * Replaces the saved settings overrides with `update(saved)` in one atomic step and returns
   * what was saved: concurrent updates, from any replica, run one after the other, each on what
   * the one before saved, so none is lost. When `update` throws, nothing changes and the call
   * rejects with its error.
   */
  updateSettingsOverrides(
    update: (saved: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
}

/** An OAuth token set kept per tenant and provider; never served in a response. */
export interface StoredOAuthToken {
  readonly tenantId: string;
  readonly provider: string;
  readonly accessToken: string;
  readonly refreshToken: string | null;
  readonly tokenType: string;
  readonly scope: string | null;
  /** When the access token expires (ISO 8601), or null when the provider gave no expiry. */
  readonly expiresAt: string | null;
}

/** A pending OAuth flow's state as the store keeps it (see `Store.takeOAuthState`). */
export interface StoredOAuthState {
  /** The flow's record as JSON text (the PKCE verifier, tenant, provider, `return_to`; never a token). */
  readonly record: string;
  /** Epoch milliseconds after which the state is refused. */
  readonly expiresAtMs: number;
}

/** The OAuth part of a store: tokens per tenant and provider, and the states of pending flows. */
export interface OAuthStore {
  /** Saves a tenant's token of one provider, replacing the one before. */
  saveOAuthToken(token: StoredOAuthToken): Promise<void>;
  /** A tenant's token of one provider, or `null`. */
  loadOAuthToken(tenantId: string, provider: string): Promise<StoredOAuthToken | null>;
  /**
   * Remembers a pending OAuth flow under its `state` until `expiresAtMs` (epoch ms), replacing
   * a record of the same state; sweeps a bounded batch of expired states on the way.
   */
  putOAuthState(state: string, record: string, expiresAtMs: number): Promise<void>;
  /**
   * Removes and returns the record of `state`, atomically and once: of concurrent takes, from
   * any replica, exactly one gets it. Expired records not yet swept are returned too, so the
   * caller can say why it refuses them; null when the state is unknown or already taken.
   */
  takeOAuthState(state: string): Promise<StoredOAuthState | null>;
}

/** The states a run is in while in progress. */
export const RUN_STATES_IN_PROGRESS = ['queued', 'running', 'awaiting_input'] as const;

/** The states a run ends in. */
const FINAL_RUN_STATES = ['completed', 'failed', 'cancelled'] as const;

/** Every state of a run: in progress, then final (the run routes' `state` lists them in this order). */
export const RUN_STATES = [...RUN_STATES_IN_PROGRESS, ...FINAL_RUN_STATES] as const;

/** The state of a run. */
export type RunState = (typeof RUN_STATES)[number];

/** Whether a run in this state has ended. */
export function isFinalRunState(state: RunState): boolean {
  return (FINAL_RUN_STATES as readonly RunState[]).includes(state);
}

/** One run (the life of one invoke) as the store keeps it. */
export interface StoredRun {
  /** The invocation id (`inv_…`). */
  readonly id: string;
  readonly tenantId: string;
  readonly sessionId: string;
  readonly state: RunState;
  /** Started by `"background": true` or `Prefer: respond-async`. */
  readonly background: boolean;
  /** Epoch milliseconds. */
  readonly createdAtMs: number;
  readonly finishedAtMs: number | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** The chat reply once completed (JSON text). */
  readonly reply: string | null;
  /** The problem once failed or cancelled (JSON text: `{code, title, detail}`). */
  readonly problem: string | null;
  /** The instance running it, or that ran it last. */
  readonly runner: string | null;
  /** Epoch milliseconds after which another replica may take the run over; null once finished. */
  readonly leaseExpiresAtMs: number | null;
  /** A cancel was asked for (from any replica); the runner stops the run when it sees it. */
  readonly cancelRequested: boolean;
  /** The number of the last part stored (parts are numbered from 1). */
  readonly lastSeq: number;
  /** The chat request that started it (JSON text), so a taken-over run can be retried; empty for a run that never is (a JSON invoke's). */
  readonly request: string;
  /** A tool with side effects ran: a taken-over run is not retried. */
  readonly sideEffects: boolean;
  /**
   * The tool calls it asked a person about (JSON text, see `src/features/approvals`), with
   * their decisions so far; null for a run that never asked. Set while it is `awaiting_input`.
   */
  readonly approvals: string | null;
}

/** A batch of a run's stream parts, numbered `firstSeq`, `firstSeq + 1`, … (each part JSON text). */
interface RunPartBatch {
  readonly firstSeq: number;
  readonly parts: readonly string[];
}

/** One run's row and the parts it produced since the last write, saved together. */
export interface RunWrite {
  readonly run: StoredRun;
  readonly parts?: RunPartBatch;
}

/** A stored stream part of a run. */
export interface StoredRunPart {
  readonly seq: number;
  /** The part as JSON text. */
  readonly part: string;
}

/**
 * The runs part of a store: a run per invoke and its numbered stream parts, shared by replicas
 * (the runs feature, `src/features/runs`, is its one user). Leases say which instance runs a
 * run; an expired lease lets another replica take the run over. Finished runs and their parts
 * are removed `RUN_RETENTION` after they finished, by the store's periodic clean-up.
 */
export interface RunStore {
  /**
   * Saves runs and their part batches in one transaction. A run's row is written only while
   * it is new or still held by the same `runner` (a run taken over by another replica is left
   * alone) and never from a final state back to one in progress; a batch already stored is
   * not stored twice.
   */
  writeRuns(writes: readonly RunWrite[]): Promise<void>;
  /** One run, or null when unknown. */
  readRun(id: string): Promise<StoredRun | null>;
  /** The run's parts numbered above `afterSeq`, in order, at most `limit`. */
  readRunParts(id: string, afterSeq: number, limit: number): Promise<StoredRunPart[]>;
  /** The newest run of a session still in progress, or null. */
  readActiveRun(tenantId: string, sessionId: string): Promise<StoredRun | null>;
  /**
   * The tenant's runs, the newest first (by id, which orders by time), at most `limit`: of one
   * session when `sessionId` is given, and only those older than `beforeId` when it is (a page
   * after the one that ended with it).
   */
  readTenantRuns(
    tenantId: string,
    page: { readonly sessionId?: string; readonly beforeId?: string; readonly limit: number },
  ): Promise<StoredRun[]>;
  /** The tenant's runs `awaiting_input` (a person's approval), the longest waiting first, at most `limit`. */
  readAwaitingRuns(tenantId: string, limit: number): Promise<StoredRun[]>;
  /** Marks a run in progress as asked to cancel; returns the run as it is after (null when unknown). */
  requestRunCancel(id: string): Promise<StoredRun | null>;
  /** Of the given runs (of this runner), those a cancel was asked for. */
  cancelledRuns(ids: readonly string[]): Promise<string[]>;
  /**
   * Takes over at most `limit` runs in progress whose lease expired before `nowMs`, giving them
   * to `runner` until `leaseExpiresAtMs`; of replicas taking at once, each run goes to one. A run
   * `awaiting_input` holds its approvals' deadline as its lease: it is taken once that passed
   * `deadlineMs` (default `nowMs`), so that a sweep of every running run (`nowMs` far ahead, as
   * a restarted process on its own SQLite file does) leaves waiting ones waiting.
   */
  takeExpiredRuns(
    runner: string,
    nowMs: number,
    leaseExpiresAtMs: number,
    limit: number,
    deadlineMs?: number,
  ): Promise<StoredRun[]>;
  /**
   * Records decisions on a run `awaiting_input`: replaces its `approvals` with `after` only while
   * they still read `before` (of replicas deciding at once, one wins) and, with `resume`, gives
   * the run to `resume.runner` until `resume.leaseExpiresAtMs`, `running` again. Returns the run
   * as it is after, or null when it was not waiting or its approvals had changed.
   */
  decideRunApprovals(
    id: string,
    before: string,
    after: string,
    resume?: { readonly runner: string; readonly leaseExpiresAtMs: number },
  ): Promise<StoredRun | null>;
}
