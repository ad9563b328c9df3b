import type { HistoryRow } from './history-cache.js';
import type { TurnToSave, StoredMessage } from './store.js';

/**
 * How one engine reads and writes sessions for `SqlStore`: the per-invoke work, which is where
 * the engines differ (PostgreSQL: one prepared statement per call; SQLite: a few statements in
 * one transaction, and a history cache). Inputs arrive checked.
 */
export interface SessionEngine {
  /** Counts the records (distinct by id), appends the history of each it counts and completes its idempotency key, atomically. */
  record(records: readonly TurnToSave[], nowMs: number): Promise<void>;
  /** Appends messages to a session's history, in order; `now` is the session's `updated_at`. */
  append(tenantId: string, sessionId: string, messages: readonly StoredMessage[], now: string): Promise<void>;
  /** The last `limit` (> 0) history rows of a session, oldest first. */
  load(tenantId: string, sessionId: string, limit: number): Promise<HistoryRow[]>;
}
