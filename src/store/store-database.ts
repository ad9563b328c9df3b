import type { ColumnType } from 'kysely';

/**
 * A 64-bit integer column: PostgreSQL's driver reads `bigint` as a string, SQLite's as a
 * number, so reads go through `Number()` (and increments computed in SQL are typed alike).
 */
type BigIntColumn = ColumnType<number | string, number, number | string>;

/** Key-value facts about the store itself, such as when it was created. */
interface MetaTable {
  key: string;
  value: string;
}

/** The store's migrations that have run, in the layout of Kysely's `Migrator` (`timestamp` is ISO 8601 text). */
interface MigrationsTable {
  name: string;
  timestamp: string;
}

/** Additive counters of one tenant, plus its distinct session and user counts. */
interface StatsCountersTable {
  tenant_id: string;
  invocations: BigIntColumn;
  errors: BigIntColumn;
  input_tokens: BigIntColumn;
  output_tokens: BigIntColumn;
  tool_calls: BigIntColumn;
  latency_ms_total: number;
  latency_ms_max: number;
  first_invoked_at_ms: BigIntColumn;
  last_invoked_at_ms: BigIntColumn;
  sessions: BigIntColumn;
  users: BigIntColumn;
}

/** Counters that span tenants: the number of distinct users across all of them. */
interface StatsTotalsTable {
  id: number;
  users: BigIntColumn;
}

/** Every (tenant, session) pair counted once. */
interface StatsSessionsTable {
  tenant_id: string;
  session_id: string;
}

/** Every (tenant, user) pair counted once. */
interface StatsUsersTable {
  tenant_id: string;
  user_identifier: string;
}

/** Every user counted once across tenants. */
interface StatsAllUsersTable {
  user_identifier: string;
}

/** Ids of invocation records already counted, so a retried write counts once; pruned after a day. */
interface StatsAppliedTable {
  id: string;
  applied_at_ms: BigIntColumn;
}

/** One conversation of a tenant; `message_count` numbers its messages. */
interface ChatSessionsTable {
  tenant_id: string;
  session_id: string;
  message_count: BigIntColumn;
  created_at: string;
  updated_at: string;
}

/** One message of a conversation; `position` orders a session's messages from 0. */
interface ChatMessagesTable {
  tenant_id: string;
  session_id: string;
  position: BigIntColumn;
  id: string;
  role: string;
  content: string;
  /** JSON text, or null. */
  data: string | null;
  created_at: string;
}

/** Settings overrides saved by `PUT /settings`, as one JSON document per scope. */
interface SettingsOverridesTable {
  scope: string;
  overrides: string;
  updated_at: string;
}

/** OAuth token sets per tenant and provider. */
interface OAuthTokensTable {
  tenant_id: string;
  provider: string;
  access_token: string;
  refresh_token: string | null;
  token_type: string;
  scope: string | null;
  expires_at: string | null;
  updated_at: string;
}

/** `Idempotency-Key` records; a row whose `expires_at_ms` has passed counts as free. */
interface IdempotencyKeysTable {
  key: string;
  fingerprint: string;
  state: 'running' | 'completed';
  status: number | null;
  body: string | null;
  expires_at_ms: BigIntColumn;
}

/** Pending OAuth flows by `state` (migration `0002_oauth_states`); `record` is JSON text. */
interface OAuthStatesTable {
  state: string;
  record: string;
  expires_at_ms: BigIntColumn;
}

/** Runs (migration `0004_runs`): one per invoke; booleans are 0/1 on both engines. */
interface RunsTable {
  id: string;
  tenant_id: string;
  session_id: string;
  state: string;
  background: number;
  created_at_ms: BigIntColumn;
  finished_at_ms: BigIntColumn | null;
  input_tokens: BigIntColumn;
  output_tokens: BigIntColumn;
  reply: string | null;
  problem: string | null;
  runner: string | null;
  lease_expires_at_ms: BigIntColumn | null;
  cancel_requested: number;
  last_seq: BigIntColumn;
  request: string;
  side_effects: number;
  approvals: string | null;
}

/** A run's stream parts, one row per batch: `parts` is a JSON array of parts `first_seq`…`last_seq`. */
interface RunPartsTable {
  run_id: string;
  first_seq: BigIntColumn;
  last_seq: BigIntColumn;
  parts: string;
}

/** The tables of an actorkit store, for Kysely. */
export interface StoreDatabase {
  actorkit_meta: MetaTable;
  actorkit_migrations: MigrationsTable;
  actorkit_stats_counters: StatsCountersTable;
  actorkit_stats_totals: StatsTotalsTable;
  actorkit_stats_sessions: StatsSessionsTable;
  actorkit_stats_users: StatsUsersTable;
  actorkit_stats_all_users: StatsAllUsersTable;
  actorkit_stats_applied: StatsAppliedTable;
  actorkit_chat_sessions: ChatSessionsTable;
  actorkit_chat_messages: ChatMessagesTable;
  actorkit_settings_overrides: SettingsOverridesTable;
  actorkit_oauth_tokens: OAuthTokensTable;
  actorkit_idempotency_keys: IdempotencyKeysTable;
  actorkit_oauth_states: OAuthStatesTable;
  actorkit_runs: RunsTable;
  actorkit_run_parts: RunPartsTable;
}
