import type { HistoryRow } from './history-cache.js';
import type { TurnToSave, StoredMessage } from './store.js';

/**
 * How one engine reads and writes sessions for `SqlStore`: the per-invoke work, which is where
 * the engines differ (PostgreSQL: one prepared statement per call; SQLite: a few statements in
 * one transaction, and a history cache). Inputs arrive checked. Which turns share a call is
 * `GroupCommit`'s business, not the engine's.
 */
export interface SessionEngine {
  /** Saves the turns (distinct by id) in one transaction: counts each not counted before, appends its history and completes its idempotency key. */
  save(turns: readonly TurnToSave[], nowMs: number): Promise<void>;
  /** Appends messages to a session's history, in order; `now` is the session's `updated_at`. */
  append(tenantId: string, sessionId: string, messages: readonly StoredMessage[], now: string): Promise<void>;
  /** The last `limit` (> 0) history rows of a session, oldest first. */
  load(tenantId: string, sessionId: string, limit: number): Promise<HistoryRow[]>;
}
