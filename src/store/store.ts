import type { IdempotencyStore } from './idempotency-store.js';
import type { OAuthStore } from './oauth-store.js';
import type { SessionStore } from './session-store.js';
import type { SettingsStore } from './settings-store.js';

export type { IdempotencyCompletion, IdempotencyRecord, IdempotencyStore } from './idempotency-store.js';
export type { OAuthStore, StoredOAuthState, StoredOAuthToken } from './oauth-store.js';
export type { InvocationRecord, SessionStore, StatsSnapshot, StoredMessage } from './session-store.js';
export type { SettingsStore } from './settings-store.js';

/**
 * Everything an actor keeps between requests and restarts, in four narrow parts — sessions
 * (history and stats), idempotency keys, settings overrides, OAuth — each used on its own by
 * the code that needs it. Implementations: SQLite (the default), PostgreSQL, and an in-memory
 * double for tests; a new backend proves itself with `describeStoreContract` from
 * `actorkit/testing`. Every method may reject when the database is unreachable; callers decide
 * what to do with that.
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
