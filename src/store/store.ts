/**
 * Everything an actor keeps between requests and restarts, in four narrow parts — sessions
 * (history and stats), idempotency keys, settings overrides, OAuth — each used on its own by
 * the code that needs it. Implementations: SQLite (the default), PostgreSQL, and an in-memory
 * double for tests; a new backend proves itself with `describeStoreContract` from
 * `actorkit/testing`. These four parts are all a backend implements: group commit, the outage
 * queue and retries are one wrapper over any store's sessions (`GroupCommit`). Every method may
 * reject when the database is unreachable; callers decide what to do with that.
 */
export interface Store extends SessionStore, IdempotencyStore, SettingsStore, OAuthStore {
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
  saveOAuthToken(token: StoredOAuthToken): Promise<void>;
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
