import type { IdempotencyCompletion } from './idempotency-store.js';

/** What one finished invoke adds to the statistics of its tenant. */
export interface InvocationRecord {
  /**
   * Identifies the record so that a retried write counts it once (a write whose reply was lost
   * may have committed). The invocation buffer always sets one; without it, every call counts.
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
   * the record, and only when it counts it: a retried record's messages are not appended twice.
   */
  readonly history?: readonly StoredMessage[];
  /**
   * Completes the turn's claimed `Idempotency-Key` with its reply in the same transaction, and
   * only when it counts the record; a key not claimed (any more) is left as it is.
   */
  readonly idempotency?: IdempotencyCompletion;
}

/** The counters behind `GET /stats` and `GET /stats/{tenant_id}`. */
export interface StatsSnapshot {
  /** When counting started: the earliest record, or when the store was created. */
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
 * The sessions part of a store: what a turn reads (the session's history) and commits (its
 * messages with its stats record), and the counters behind `/stats`. Every method may reject
 * when the database is unreachable.
 */
export interface SessionStore {
  /**
   * Adds finished invokes to the counters and appends their `history`, all in one transaction;
   * each record is counted exactly once.
   */
  recordInvocations(records: readonly InvocationRecord[]): Promise<void>;
  /** Counters for all tenants, or for one tenant (zeros for a tenant never seen). */
  readStats(tenantId?: string): Promise<StatsSnapshot>;
  /** Appends messages to a session's history, in order. */
  appendMessages(tenantId: string, sessionId: string, messages: readonly StoredMessage[]): Promise<void>;
  /** The last `limit` messages of a session, oldest first. */
  loadHistory(tenantId: string, sessionId: string, limit: number): Promise<StoredMessage[]>;
}
