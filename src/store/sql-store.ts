import { sql, type Kysely, type Transaction } from 'kysely';
import type { Logger } from '../log/logger.js';
import { SerialQueue } from './serial-queue.js';
import { snapshotFromTally, tallyByTenant } from './stats-tally.js';
import type {
  IdempotencyRecord,
  InvocationRecord,
  StatsSnapshot,
  Store,
  StoredMessage,
  StoredOAuthState,
  StoredOAuthToken,
} from './store.js';
import type { BigIntColumn, StoreDatabase } from './store-database.js';
import {
  assertHistoryLimit,
  assertOAuthStateInput,
  assertOAuthStateLookup,
  assertInvocationRecord,
  assertOAuthToken,
  assertStoredMessage,
  assertStoreKey,
  assertTtl,
  serialiseMessageData,
  serialiseSettingsOverrides,
} from './store-input-validation.js';
import { runMigrations, type StoreEngine } from './store-migrations.js';

/** Rows per multi-row insert: far below SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK_ROWS = 500;
/** How long the ids of counted records are kept to recognise a retried write. */
const APPLIED_ID_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Least time between two clean-ups of expired idempotency keys and old record ids. */
const MAINTENANCE_INTERVAL_MS = 60 * 1000;
/** Most expired OAuth states one `putOAuthState` deletes: more than one per put keeps the table swept. */
const OAUTH_STATE_SWEEP_ROWS = 100;

/** Options of a `SqlStore`. */
export interface SqlStoreOptions {
  readonly db: Kysely<StoreDatabase>;
  readonly engine: StoreEngine;
  readonly logger: Logger;
  /** Called after the Kysely instance is destroyed, to close what it does not own. */
  readonly onClose?: () => void | Promise<void>;
}

type Tx = Transaction<StoreDatabase>;

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let index = 0; index < items.length; index += CHUNK_ROWS) result.push(items.slice(index, index + CHUNK_ROWS));
  return result;
}

function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < a.length; index += 1) {
    const left = a[index] ?? '';
    const right = b[index] ?? '';
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}

/** Distinct string pairs in a fixed order, so concurrent transactions lock rows in the same order. */
function sortedPairs(pairs: Iterable<readonly [string, string]>): [string, string][] {
  const unique = new Map<string, [string, string]>();
  for (const [a, b] of pairs) unique.set(JSON.stringify([a, b]), [a, b]);
  return [...unique.values()].sort(compareKeys);
}

function countBy(values: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

/**
 * The SQLite and PostgreSQL store: every query written once with Kysely. Stats are counted
 * exactly once per record id and atomically per call; on PostgreSQL, rows are locked in a
 * fixed order so replicas writing at once neither lose updates nor deadlock. On SQLite,
 * calls run one at a time (see `SerialQueue`).
 */
export class SqlStore implements Store {
  readonly kind: StoreEngine;
  readonly #db: Kysely<StoreDatabase>;
  readonly #logger: Logger;
  readonly #onClose: (() => void | Promise<void>) | undefined;
  readonly #queue: SerialQueue | undefined;
  #lastMaintenanceMs = 0;
  #maintenance: Promise<void> = Promise.resolve();
  #closing: Promise<void> | undefined;

  constructor(options: SqlStoreOptions) {
    this.kind = options.engine;
    this.#db = options.db;
    this.#logger = options.logger;
    this.#onClose = options.onClose;
    this.#queue = options.engine === 'sqlite' ? new SerialQueue() : undefined;
  }

  #run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(new Error('The store is closed'));
    return this.#queue === undefined ? task() : this.#queue.run(task);
  }

  #transaction<T>(work: (trx: Tx) => Promise<T>): Promise<T> {
    return this.#run(() => this.#db.transaction().execute(work));
  }

  async migrate(): Promise<void> {
    const applied = await this.#run(() => runMigrations(this.#db, this.kind));
    if (applied.length > 0) this.#logger.info('store_migrated', { store: this.kind, applied });
  }

  async ping(): Promise<void> {
    await this.#run(() => sql`select 1`.execute(this.#db));
  }

  async recordInvocations(records: readonly InvocationRecord[]): Promise<void> {
    for (const record of records) assertInvocationRecord(record);
    if (records.length === 0) return;
    const nowMs = Date.now();
    await this.#transaction(async (trx) => {
      const fresh = await this.#keepUncounted(trx, records, nowMs);
      if (fresh.length === 0) return;
      const newSessions = countBy(await this.#insertNewPairs(trx, 'actorkit_stats_sessions', 'session_id', fresh.map((r) => [r.tenantId, r.sessionId])));
      const newUsers = countBy(await this.#insertNewPairs(trx, 'actorkit_stats_users', 'user_identifier', fresh.map((r) => [r.tenantId, r.userIdentifier])));
      let newAllUsers = 0;
      for (const chunk of chunks([...new Set(fresh.map((r) => r.userIdentifier))].sort())) {
        const inserted = await trx
          .insertInto('actorkit_stats_all_users')
          .values(chunk.map((user_identifier) => ({ user_identifier })))
          .onConflict((conflict) => conflict.column('user_identifier').doNothing())
          .returning('user_identifier')
          .execute();
        newAllUsers += inserted.length;
      }
      const rows = [...tallyByTenant(fresh)].map(([tenantId, tally]) => ({
        tenant_id: tenantId,
        invocations: tally.invocations,
        errors: tally.errors,
        input_tokens: tally.inputTokens,
        output_tokens: tally.outputTokens,
        tool_calls: tally.toolCalls,
        latency_ms_total: tally.latencyMsTotal,
        latency_ms_max: tally.latencyMsMax,
        first_invoked_at_ms: tally.firstInvokedAtMs ?? nowMs,
        last_invoked_at_ms: tally.lastInvokedAtMs ?? nowMs,
        sessions: newSessions.get(tenantId) ?? 0,
        users: newUsers.get(tenantId) ?? 0,
      }));
      for (const chunk of chunks(rows)) {
        await trx
          .insertInto('actorkit_stats_counters')
          .values(chunk)
          .onConflict((conflict) =>
            conflict.column('tenant_id').doUpdateSet((eb) => {
              const add = (column: 'invocations' | 'errors' | 'input_tokens' | 'output_tokens' | 'tool_calls' | 'sessions' | 'users') =>
                eb(`actorkit_stats_counters.${column}`, '+', eb.ref(`excluded.${column}`));
              const pick = (column: 'latency_ms_max' | 'first_invoked_at_ms' | 'last_invoked_at_ms', operator: '<' | '>') => {
                const incoming = sql.ref(`excluded.${column}`);
                const current = sql.ref(`actorkit_stats_counters.${column}`);
                return sql<number>`case when ${incoming} ${sql.raw(operator)} ${current} then ${incoming} else ${current} end`;
              };
              return {
                invocations: add('invocations'),
                errors: add('errors'),
                input_tokens: add('input_tokens'),
                output_tokens: add('output_tokens'),
                tool_calls: add('tool_calls'),
                latency_ms_total: eb('actorkit_stats_counters.latency_ms_total', '+', eb.ref('excluded.latency_ms_total')),
                sessions: add('sessions'),
                users: add('users'),
                latency_ms_max: pick('latency_ms_max', '>'),
                first_invoked_at_ms: pick('first_invoked_at_ms', '<'),
                last_invoked_at_ms: pick('last_invoked_at_ms', '>'),
              };
            }),
          )
          .execute();
      }
      if (newAllUsers > 0) {
        await trx
          .updateTable('actorkit_stats_totals')
          .set((eb) => ({ users: eb('users', '+', newAllUsers) }))
          .where('id', '=', 1)
          .execute();
      }
    });
    this.#maintainNow(nowMs);
  }

  /** Records the ids of `records` as counted and returns the records not counted before. */
  async #keepUncounted(trx: Tx, records: readonly InvocationRecord[], nowMs: number): Promise<InvocationRecord[]> {
    const byId = new Map<string, InvocationRecord>();
    const anonymous: InvocationRecord[] = [];
    for (const record of records) {
      if (record.id === undefined) anonymous.push(record);
      else if (!byId.has(record.id)) byId.set(record.id, record);
    }
    const fresh = [...anonymous];
    for (const chunk of chunks([...byId.keys()].sort())) {
      const inserted = await trx
        .insertInto('actorkit_stats_applied')
        .values(chunk.map((id) => ({ id, applied_at_ms: nowMs })))
        .onConflict((conflict) => conflict.column('id').doNothing())
        .returning('id')
        .execute();
      for (const { id } of inserted) fresh.push(byId.get(id) as InvocationRecord);
    }
    return fresh;
  }

  /** Inserts the pairs not yet present and returns the tenant id of each one inserted. */
  async #insertNewPairs(
    trx: Tx,
    table: 'actorkit_stats_sessions' | 'actorkit_stats_users',
    column: 'session_id' | 'user_identifier',
    pairs: Iterable<readonly [string, string]>,
  ): Promise<string[]> {
    const tenants: string[] = [];
    for (const chunk of chunks(sortedPairs(pairs))) {
      const inserted = await trx
        .insertInto(table)
        .values(chunk.map(([tenant_id, value]) => ({ tenant_id, [column]: value }) as { tenant_id: string; session_id: string; user_identifier: string }))
        .onConflict((conflict) => conflict.columns(['tenant_id', column] as ['tenant_id', 'session_id']).doNothing())
        .returning('tenant_id')
        .execute();
      for (const row of inserted) tenants.push(row.tenant_id);
    }
    return tenants;
  }

  async readStats(tenantId?: string): Promise<StatsSnapshot> {
    const row = await this.#run(() => {
      let query = this.#db.selectFrom('actorkit_stats_counters').select((eb) => [
        eb.fn.sum<number | string | null>('invocations').as('invocations'),
        eb.fn.sum<number | string | null>('errors').as('errors'),
        eb.fn.sum<number | string | null>('input_tokens').as('input_tokens'),
        eb.fn.sum<number | string | null>('output_tokens').as('output_tokens'),
        eb.fn.sum<number | string | null>('tool_calls').as('tool_calls'),
        eb.fn.sum<number | string | null>('latency_ms_total').as('latency_ms_total'),
        eb.fn.max<number | string | null>('latency_ms_max').as('latency_ms_max'),
        eb.fn.min<number | string | null>('first_invoked_at_ms').as('first_invoked_at_ms'),
        eb.fn.max<number | string | null>('last_invoked_at_ms').as('last_invoked_at_ms'),
        eb.fn.sum<number | string | null>('sessions').as('sessions'),
        eb.fn.sum<number | string | null>('users').as('tenant_users'),
        eb.fn.countAll<number | string>().as('tenants'),
        eb.selectFrom('actorkit_stats_totals').select('users').where('id', '=', 1).as('all_users'),
        eb.selectFrom('actorkit_meta').select('value').where('key', '=', 'created_at').as('created_at'),
      ]);
      if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
      return query.executeTakeFirstOrThrow();
    });
    const number = (value: number | string | null | undefined) => Number(value ?? 0);
    const first = row.first_invoked_at_ms;
    const last = row.last_invoked_at_ms;
    return snapshotFromTally(
      {
        invocations: number(row.invocations),
        errors: number(row.errors),
        inputTokens: number(row.input_tokens),
        outputTokens: number(row.output_tokens),
        toolCalls: number(row.tool_calls),
        latencyMsTotal: number(row.latency_ms_total),
        latencyMsMax: number(row.latency_ms_max),
        firstInvokedAtMs: first === null ? null : Number(first),
        lastInvokedAtMs: last === null ? null : Number(last),
      },
      {
        sessions: number(row.sessions),
        users: number(tenantId === undefined ? row.all_users : row.tenant_users),
        tenants: number(row.tenants),
      },
      row.created_at ?? new Date(0).toISOString(),
    );
  }

  async appendMessages(tenantId: string, sessionId: string, messages: readonly StoredMessage[]): Promise<void> {
    assertStoreKey(tenantId, 'tenantId');
    assertStoreKey(sessionId, 'sessionId');
    for (const message of messages) assertStoredMessage(message);
    if (messages.length === 0) return;
    const rows = messages.map((message) => ({
      tenant_id: tenantId,
      session_id: sessionId,
      id: message.id,
      role: message.role,
      content: message.content,
      data: serialiseMessageData(message.data),
      created_at: message.createdAt,
    }));
    const now = new Date().toISOString();
    await this.#transaction(async (trx) => {
      const session = await trx
        .insertInto('actorkit_chat_sessions')
        .values({ tenant_id: tenantId, session_id: sessionId, message_count: rows.length, created_at: now, updated_at: now })
        .onConflict((conflict) =>
          conflict.columns(['tenant_id', 'session_id']).doUpdateSet((eb) => ({
            message_count: eb('actorkit_chat_sessions.message_count', '+', eb.ref('excluded.message_count')),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .returning('message_count')
        .executeTakeFirstOrThrow();
      const firstPosition = Number(session.message_count) - rows.length;
      for (const chunk of chunks(rows.map((row, index) => ({ ...row, position: firstPosition + index })))) {
        await trx.insertInto('actorkit_chat_messages').values(chunk).execute();
      }
    });
  }

  async loadHistory(tenantId: string, sessionId: string, limit: number): Promise<StoredMessage[]> {
    assertHistoryLimit(limit);
    if (limit === 0) return [];
    const rows = await this.#run(() =>
      this.#db
        .selectFrom('actorkit_chat_messages')
        .select(['id', 'role', 'content', 'data', 'created_at'])
        .where('tenant_id', '=', tenantId)
        .where('session_id', '=', sessionId)
        .orderBy('position', 'desc')
        .limit(limit)
        .execute(),
    );
    return rows.reverse().map((row) => {
      const message: StoredMessage = { id: row.id, role: row.role as StoredMessage['role'], content: row.content, createdAt: row.created_at };
      return row.data === null ? message : { ...message, data: JSON.parse(row.data) as unknown };
    });
  }

  async loadSettingsOverrides(): Promise<Record<string, unknown>> {
    const row = await this.#run(() =>
      this.#db.selectFrom('actorkit_settings_overrides').select('overrides').where('scope', '=', 'actor').executeTakeFirst(),
    );
    return row === undefined ? {} : (JSON.parse(row.overrides) as Record<string, unknown>);
  }

  async saveSettingsOverrides(overrides: Record<string, unknown>): Promise<void> {
    const serialised = serialiseSettingsOverrides(overrides);
    const now = new Date().toISOString();
    await this.#run(() =>
      this.#db
        .insertInto('actorkit_settings_overrides')
        .values({ scope: 'actor', overrides: serialised, updated_at: now })
        .onConflict((conflict) => conflict.column('scope').doUpdateSet({ overrides: serialised, updated_at: now }))
        .execute(),
    );
  }

  async saveOAuthToken(token: StoredOAuthToken): Promise<void> {
    assertOAuthToken(token);
    const values = {
      access_token: token.accessToken,
      refresh_token: token.refreshToken,
      token_type: token.tokenType,
      scope: token.scope,
      expires_at: token.expiresAt,
      updated_at: new Date().toISOString(),
    };
    await this.#run(() =>
      this.#db
        .insertInto('actorkit_oauth_tokens')
        .values({ tenant_id: token.tenantId, provider: token.provider, ...values })
        .onConflict((conflict) => conflict.columns(['tenant_id', 'provider']).doUpdateSet(values))
        .execute(),
    );
  }

  async loadOAuthToken(tenantId: string, provider: string): Promise<StoredOAuthToken | null> {
    const row = await this.#run(() =>
      this.#db
        .selectFrom('actorkit_oauth_tokens')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('provider', '=', provider)
        .executeTakeFirst(),
    );
    if (row === undefined) return null;
    return {
      tenantId: row.tenant_id,
      provider: row.provider,
      accessToken: row.access_token,
      refreshToken: row.refresh_token,
      tokenType: row.token_type,
      scope: row.scope,
      expiresAt: row.expires_at,
    };
  }

  async putOAuthState(state: string, record: string, expiresAtMs: number): Promise<void> {
    assertOAuthStateInput(state, record, expiresAtMs);
    const nowMs = Date.now();
    const db = this.#db;
    await this.#run(async () => {
      // On PostgreSQL, rows another replica is sweeping or taking are skipped rather than waited for.
      await db
        .deleteFrom('actorkit_oauth_states')
        .where('state', 'in', (eb) =>
          eb
            .selectFrom('actorkit_oauth_states')
            .select('state')
            .where('expires_at_ms', '<=', nowMs)
            .orderBy('expires_at_ms')
            .limit(OAUTH_STATE_SWEEP_ROWS)
            .$if(this.kind === 'postgres', (query) => query.forUpdate().skipLocked()),
        )
        .execute();
      await db
        .insertInto('actorkit_oauth_states')
        .values({ state, record, expires_at_ms: expiresAtMs })
        .onConflict((conflict) => conflict.column('state').doUpdateSet({ record, expires_at_ms: expiresAtMs }))
        .execute();
    });
  }

  async takeOAuthState(state: string): Promise<StoredOAuthState | null> {
    assertOAuthStateLookup(state);
    // One DELETE … RETURNING: the row goes to exactly one caller, on SQLite (≥ 3.35) and PostgreSQL alike.
    const row = await this.#run(() =>
      this.#db.deleteFrom('actorkit_oauth_states').where('state', '=', state).returning(['record', 'expires_at_ms']).executeTakeFirst(),
    );
    return row === undefined ? null : { record: row.record, expiresAtMs: Number(row.expires_at_ms) };
  }

  async claimIdempotencyKey(key: string, fingerprint: string, ttlMs: number): Promise<IdempotencyRecord | null> {
    assertStoreKey(key, 'key');
    if (typeof fingerprint !== 'string') throw new TypeError('fingerprint must be a string');
    assertTtl(ttlMs);
    const nowMs = Date.now();
    const claimed = await this.#run(async () => {
      // A key released between the failed claim and the read is free again: claim once more.
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const won = await this.#db
          .insertInto('actorkit_idempotency_keys')
          .values({ key, fingerprint, state: 'running', status: null, body: null, expires_at_ms: nowMs + Math.ceil(ttlMs) })
          .onConflict((conflict) =>
            conflict
              .column('key')
              .doUpdateSet((eb) => ({
                fingerprint: eb.ref('excluded.fingerprint'),
                state: eb.ref('excluded.state'),
                status: null,
                body: null,
                expires_at_ms: eb.ref('excluded.expires_at_ms'),
              }))
              .where('actorkit_idempotency_keys.expires_at_ms', '<=', nowMs),
          )
          .returning('key')
          .executeTakeFirst();
        if (won !== undefined) return null;
        const row = await this.#db.selectFrom('actorkit_idempotency_keys').selectAll().where('key', '=', key).executeTakeFirst();
        if (row === undefined) continue;
        const record: IdempotencyRecord =
          row.state === 'completed'
            ? { state: 'completed', fingerprint: row.fingerprint, status: Number(row.status), body: row.body ?? '' }
            : { state: 'running', fingerprint: row.fingerprint };
        return record;
      }
      throw new Error(`Idempotency key could not be claimed: it keeps being released and taken`);
    });
    this.#maintainNow(nowMs);
    return claimed;
  }

  async completeIdempotencyKey(key: string, status: number, body: string): Promise<void> {
    if (!Number.isInteger(status) || status < 100 || status > 599) throw new TypeError('status must be an HTTP status code');
    if (typeof body !== 'string') throw new TypeError('body must be a string');
    await this.#run(() =>
      this.#db.updateTable('actorkit_idempotency_keys').set({ state: 'completed', status, body }).where('key', '=', key).execute(),
    );
  }

  async releaseIdempotencyKey(key: string): Promise<void> {
    await this.#run(() => this.#db.deleteFrom('actorkit_idempotency_keys').where('key', '=', key).execute());
  }

  /** Starts a clean-up of expired rows when the last one is older than a minute; never awaited by callers. */
  #maintainNow(nowMs: number): void {
    if (nowMs - this.#lastMaintenanceMs < MAINTENANCE_INTERVAL_MS || this.#closing !== undefined) return;
    this.#lastMaintenanceMs = nowMs;
    this.#maintenance = this.#run(async () => {
      await this.#db.deleteFrom('actorkit_idempotency_keys').where('expires_at_ms', '<', nowMs).execute();
      await this.#db.deleteFrom('actorkit_stats_applied').where('applied_at_ms', '<', nowMs - APPLIED_ID_RETENTION_MS).execute();
    }).catch((error: unknown) => this.#logger.warn('store_cleanup_failed', { store: this.kind, error }));
  }

  async close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#maintenance;
      await (this.#queue?.run(async () => {}) ?? Promise.resolve());
      await this.#db.destroy();
      await this.#onClose?.();
    })();
    return this.#closing;
  }
}
