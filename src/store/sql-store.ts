import { CompiledQuery, sql, type Kysely, type SqliteDatabase, type Transaction } from 'kysely';
import type { Logger } from '../log/logger.js';
import { HistoryCache, type HistoryAppend, type HistoryCacheOptions, type HistoryRow } from './history-cache.js';
import { postgresSessions } from './postgres-sessions.js';
import type { SessionEngine } from './session-engine.js';
import { SqliteSessions } from './sqlite-sessions.js';
import { sqliteStatements } from './sqlite-statements.js';
import { snapshotFromTally } from './stats-tally.js';
import type {
  IdempotencyRecord,
  RunWrite,
  StoredRun,
  StoredRunPart,
  TurnToSave,
  StatsSnapshot,
  Store,
  StoredMessage,
  StoredOAuthState,
  StoredOAuthToken,
} from './store.js';
import type { StoreDatabase } from './store-database.js';
import {
  assertHistoryLimit,
  assertHttpStatus,
  assertOAuthStateInput,
  assertOAuthStateLookup,
  assertOAuthToken,
  assertStoreKey,
  assertTtl,
  checkedTurnToSave,
  checkedTurnHistory,
  serialiseSettingsOverrides,
} from './store-input-validation.js';
import { invokeStatements, type InvokeStatements } from './invoke-statements.js';
import { migrateStore } from './migrate-store.js';
import * as runs from './sql-runs.js';
import type { StoreEngine } from './store-migrations.js';

/** How long the ids of counted turns are kept to recognise a retried save. */
const APPLIED_ID_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Least time between two clean-ups of expired idempotency keys and old turn ids. */
const MAINTENANCE_INTERVAL_MS = 60 * 1000;
/** Most expired OAuth states one `putOAuthState` deletes: more than one per put keeps the table swept. */
const OAUTH_STATE_SWEEP_ROWS = 100;

/** Options of a `SqlStore`. */
export interface SqlStoreOptions {
  readonly db: Kysely<StoreDatabase>;
  /** Runs the migrations when given (on PostgreSQL: the same pool without the per-query deadline); not destroyed by `close()`. */
  readonly migrationDb?: Kysely<StoreDatabase>;
  readonly engine: StoreEngine;
  readonly logger: Logger;
  /**
   * SQLite only, and required there: the one connection `db` runs on. The per-invoke statements
   * (history read, `PRAGMA data_version`, the group write and its transaction) run on it
   * directly (`sqliteStatements`), without Kysely's per-call cost.
   */
  readonly sqliteConnection?: Pick<SqliteDatabase, 'prepare'>;
  /**
   * Runs SQL text as a named prepared statement, parsed and planned once per connection (on
   * PostgreSQL, planning the per-invoke statements costs more than running them). Without it,
   * those statements go through Kysely like the others.
   */
  readonly prepared?: (name: string, text: string, parameters: readonly unknown[]) => Promise<unknown[]>;
  /**
   * Bounds of the cache of recent history (`HistoryCache`), on by default; false turns it off.
   * SQLite checks it with `PRAGMA data_version`; PostgreSQL, whose replicas write the same
   * database, checks it against the session in the query that reads the newer messages.
   */
  readonly historyCache?: HistoryCacheOptions | false;
  /** Called after the Kysely instance is destroyed, to close what it does not own. */
  readonly onClose?: () => void | Promise<void>;
  /** How long finished runs and their parts are kept, in milliseconds (`RUN_RETENTION`; default 24 h). */
  readonly runRetentionMs?: number;
}

/** `RUN_RETENTION` when none is given: 24 hours. */
const DEFAULT_RUN_RETENTION_MS = 24 * 60 * 60 * 1000;

type Tx = Transaction<StoreDatabase>;

/**
 * Runs ready SQL text with its parameters, without building or compiling a Kysely query.
 * @param executor the store's Kysely instance, or a transaction of it
 * @param text SQL text with the engine's placeholders
 * @param parameters the values bound to them
 */
async function querySqlText<Row = unknown>(
  executor: Kysely<StoreDatabase>,
  text: string,
  parameters: readonly unknown[],
): Promise<Row[]> {
  const result = await executor.executeQuery<Row>(CompiledQuery.raw(text, [...parameters]) as CompiledQuery<Row>);
  return [...result.rows];
}

/**
 * Runs async tasks one at a time, in call order. SQLite has one writer and libSQL executes
 * statements synchronously, so two interleaved transactions on one process would wait on
 * each other's lock while blocking the event loop; queueing them avoids that.
 */
class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` once every task queued before it has settled; resolves or rejects as it does. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/** The turns to count: every one without an id, and the first of each id. */
function distinctTurns(turns: readonly TurnToSave[]): TurnToSave[] {
  const seen = new Set<string>();
  return turns.filter((turn) => turn.id === undefined || (!seen.has(turn.id) && seen.add(turn.id) !== undefined));
}

/** A history row as the message `loadHistory` returns, `data` parsed anew. */
function messageFromRow(row: HistoryRow): StoredMessage {
  const message: StoredMessage = {
    id: row.id,
    role: row.role as StoredMessage['role'],
    content: row.content,
    createdAt: row.created_at,
  };
  return row.data === null ? message : { ...message, data: JSON.parse(row.data) as unknown };
}

/**
 * The SQLite and PostgreSQL store: every query written once with Kysely, but for the per-invoke
 * session work, where the engines differ, behind each engine (`SqliteSessions`,
 * `postgresSessions`). Turns are counted exactly once per id and atomically per call;
 * on PostgreSQL, rows are locked in a fixed order so replicas writing at once neither lose
 * updates nor deadlock. On SQLite, calls run one at a time (see `SerialQueue`). Each call is
 * its own transaction: invokes share one by sharing a `saveTurns` call, which the
 * `GroupCommit` arranges. The statements every invoke runs skip Kysely's query
 * compilation (see `invokeStatements`); on SQLite they skip Kysely altogether and run on the
 * store's one connection (see `sqliteStatements`).
 */
export class SqlStore implements Store {
  readonly kind: StoreEngine;
  readonly #db: Kysely<StoreDatabase>;
  readonly #migrationDb: Kysely<StoreDatabase>;
  readonly #logger: Logger;
  readonly #onClose: (() => void | Promise<void>) | undefined;
  readonly #queue: SerialQueue | undefined;
  readonly #statements: InvokeStatements;
  readonly #prepared: SqlStoreOptions['prepared'];
  readonly #historyCache: HistoryCache | undefined;
  readonly #sessions: SessionEngine;
  readonly #runRetentionMs: number;
  readonly #writeRuns: ReturnType<typeof runs.runsWriter>;
  #lastMaintenanceMs = 0;
  #maintenance: Promise<void> = Promise.resolve();
  #closing: Promise<void> | undefined;

  constructor(options: SqlStoreOptions) {
    this.kind = options.engine;
    this.#db = options.db;
    this.#migrationDb = options.migrationDb ?? options.db;
    this.#logger = options.logger;
    this.#onClose = options.onClose;
    this.#prepared = options.prepared;
    this.#runRetentionMs = options.runRetentionMs ?? DEFAULT_RUN_RETENTION_MS;
    this.#writeRuns = runs.runsWriter(options.engine);
    const queue = options.engine === 'sqlite' ? new SerialQueue() : undefined;
    this.#queue = queue;
    this.#statements = invokeStatements(options.engine);
    const historyCache = options.historyCache ?? {};
    this.#historyCache = historyCache === false ? undefined : new HistoryCache(historyCache);
    this.#sessions =
      options.engine === 'postgres'
        ? postgresSessions((name, parameters) => this.#statement(name, parameters), this.#historyCache)
        : this.#sqliteSessions(options.sqliteConnection);
  }

  #sqliteSessions(database: SqlStoreOptions['sqliteConnection']): SessionEngine {
    if (database === undefined)
      throw new TypeError('sqliteConnection is required on SQLite: the per-invoke statements run on it');
    const connection = sqliteStatements(database);
    return new SqliteSessions({
      connection,
      statements: this.#statements,
      historyCache: this.#historyCache,
      run: (task) => this.#run(task),
      transaction: (work) =>
        this.#committed(
          (body) => connection.transaction(() => body(undefined)),
          (_scope, appended) => work(appended),
        ),
    });
  }

  #run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(new Error('The store is closed'));
    return this.#queue === undefined ? task() : this.#queue.run(task);
  }

  /** Runs `work` in a Kysely transaction of its own, queued like every call (see `#committed`). */
  #transaction<T>(work: (trx: Tx, appended: HistoryAppend[]) => Promise<T>): Promise<T> {
    return this.#committed((body) => this.#db.transaction().execute(body), work);
  }

  /**
   * Runs `work` inside `transact` (which begins, commits, or rolls back and rethrows), queued
   * like every call. The history `work` appends (to `appended`) reaches the history cache once
   * the transaction has committed, before the next call runs; none of it when `work` fails and
   * is rolled back. Any other failure (to begin, commit or roll back) leaves the outcome
   * unknown: the cache is emptied.
   */
  #committed<T, Scope>(
    transact: (body: (scope: Scope) => Promise<T>) => Promise<T>,
    work: (scope: Scope, appended: HistoryAppend[]) => Promise<T>,
  ): Promise<T> {
    return this.#run(async () => {
      const appended: HistoryAppend[] = [];
      let workFailure: { readonly error: unknown } | undefined;
      try {
        const result = await transact(async (scope) => {
          try {
            return await work(scope, appended);
          } catch (error) {
            workFailure = { error };
            throw error;
          }
        });
        this.#historyCache?.append(appended);
        return result;
      } catch (error) {
        if (workFailure?.error !== error) this.#historyCache?.clear();
        throw error;
      }
    });
  }

  /** Runs one of the per-invoke statements outside a transaction, prepared once where the store can. */
  #statement<Row>(
    name: 'loadHistoryAfter' | 'appendMessages' | 'saveTurns',
    parameters: readonly unknown[],
  ): Promise<Row[]> {
    const text = this.#statements[name];
    const prepared = this.#prepared;
    return this.#run(async () =>
      prepared === undefined
        ? querySqlText<Row>(this.#db, text, parameters)
        : ((await prepared(`actorkit_${name}`, text, parameters)) as Row[]),
    );
  }

  async migrate(): Promise<void> {
    const applied = await this.#run(async () => {
      try {
        return await migrateStore(this.#migrationDb, this.kind);
      } finally {
        this.#historyCache?.clear();
      }
    });
    if (applied.length > 0) this.#logger.info('store_migrated', { store: this.kind, applied });
  }

  async ping(): Promise<void> {
    await this.#run(() => sql`select 1`.execute(this.#db));
  }

  async saveTurns(input: readonly TurnToSave[]): Promise<void> {
    const turns = input.map((turn) => checkedTurnToSave(turn));
    if (turns.length === 0) return;
    const nowMs = Date.now();
    await this.#sessions.save(distinctTurns(turns), nowMs);
    this.#maintainNow(nowMs);
  }

  async readStats(tenantId?: string): Promise<StatsSnapshot> {
    const row = await this.#run(() => {
      let query = this.#db
        .selectFrom('actorkit_stats_counters')
        .select((eb) => [
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

  async appendMessages(tenantId: string, sessionId: string, turn: readonly StoredMessage[]): Promise<void> {
    assertStoreKey(tenantId, 'tenantId');
    assertStoreKey(sessionId, 'sessionId');
    const messages = checkedTurnHistory(turn);
    if (messages.length === 0) return;
    await this.#sessions.append(tenantId, sessionId, messages, new Date().toISOString());
  }

  async loadHistory(tenantId: string, sessionId: string, limit: number): Promise<StoredMessage[]> {
    assertHistoryLimit(limit);
    if (limit === 0) return [];
    return (await this.#sessions.load(tenantId, sessionId, limit)).map(messageFromRow);
  }

  async loadSettingsOverrides(): Promise<Record<string, unknown>> {
    const row = await this.#run(() =>
      this.#db
        .selectFrom('actorkit_settings_overrides')
        .select('overrides')
        .where('scope', '=', 'actor')
        .executeTakeFirst(),
    );
    return row === undefined ? {} : (JSON.parse(row.overrides) as Record<string, unknown>);
  }

  async updateSettingsOverrides(
    update: (saved: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    // One transaction holding the row (SQLite: the write lock of BEGIN IMMEDIATE; PostgreSQL:
    // FOR UPDATE), so every replica's update starts from the last one saved.
    return this.#transaction(async (trx) => {
      const now = new Date().toISOString();
      await trx
        .insertInto('actorkit_settings_overrides')
        .values({ scope: 'actor', overrides: '{}', updated_at: now })
        .onConflict((conflict) => conflict.column('scope').doNothing())
        .execute();
      const row = await trx
        .selectFrom('actorkit_settings_overrides')
        .select('overrides')
        .where('scope', '=', 'actor')
        .$if(this.kind === 'postgres', (query) => query.forUpdate())
        .executeTakeFirstOrThrow();
      const serialised = serialiseSettingsOverrides(update(JSON.parse(row.overrides) as Record<string, unknown>));
      await trx
        .updateTable('actorkit_settings_overrides')
        .set({ overrides: serialised, updated_at: now })
        .where('scope', '=', 'actor')
        .execute();
      return JSON.parse(serialised) as Record<string, unknown>;
    });
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
      this.#db
        .deleteFrom('actorkit_oauth_states')
        .where('state', '=', state)
        .returning(['record', 'expires_at_ms'])
        .executeTakeFirst(),
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
          .values({
            key,
            fingerprint,
            state: 'running',
            status: null,
            body: null,
            expires_at_ms: nowMs + Math.ceil(ttlMs),
          })
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
        const row = await this.#db
          .selectFrom('actorkit_idempotency_keys')
          .selectAll()
          .where('key', '=', key)
          .executeTakeFirst();
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

  async completeIdempotencyKey(key: string, status: number, body: string, ttlMs?: number): Promise<void> {
    assertHttpStatus(status);
    if (typeof body !== 'string') throw new TypeError('body must be a string');
    if (ttlMs !== undefined) assertTtl(ttlMs);
    const expiry = ttlMs === undefined ? {} : { expires_at_ms: Date.now() + Math.ceil(ttlMs) };
    await this.#run(() =>
      this.#db
        .updateTable('actorkit_idempotency_keys')
        .set({ state: 'completed', status, body, ...expiry })
        .where('key', '=', key)
        .execute(),
    );
  }

  async releaseIdempotencyKey(key: string): Promise<void> {
    await this.#run(() => this.#db.deleteFrom('actorkit_idempotency_keys').where('key', '=', key).execute());
  }

  async writeRuns(writes: readonly RunWrite[]): Promise<void> {
    if (writes.length === 0) return;
    await this.#transaction((trx) => this.#writeRuns(trx, writes));
    this.#maintainNow(Date.now());
  }

  async readRun(id: string): Promise<StoredRun | null> {
    return this.#run(() => runs.readRun(this.#db, id));
  }

  async readRunParts(id: string, afterSeq: number, limit: number): Promise<StoredRunPart[]> {
    return this.#run(() => runs.readRunParts(this.#db, id, afterSeq, limit));
  }

  async readActiveRun(tenantId: string, sessionId: string): Promise<StoredRun | null> {
    return this.#run(() => runs.readActiveRun(this.#db, tenantId, sessionId));
  }

  async readAwaitingRuns(tenantId: string, limit: number): Promise<StoredRun[]> {
    return this.#run(() => runs.readAwaitingRuns(this.#db, tenantId, limit));
  }

  async readTenantRuns(
    tenantId: string,
    page: { readonly sessionId?: string; readonly beforeId?: string; readonly limit: number },
  ): Promise<StoredRun[]> {
    return this.#run(() => runs.readTenantRuns(this.#db, tenantId, page));
  }

  async requestRunCancel(id: string): Promise<StoredRun | null> {
    return this.#transaction((trx) => runs.requestRunCancel(trx, id));
  }

  async cancelledRuns(ids: readonly string[]): Promise<string[]> {
    return this.#run(() => runs.cancelledRuns(this.#db, ids));
  }

  async decideRunApprovals(
    id: string,
    before: string,
    after: string,
    resume?: { readonly runner: string; readonly leaseExpiresAtMs: number },
  ): Promise<StoredRun | null> {
    return this.#run(() => runs.decideRunApprovals(this.#db, id, before, after, resume));
  }

  async takeExpiredRuns(
    runner: string,
    nowMs: number,
    leaseExpiresAtMs: number,
    limit: number,
    deadlineMs = nowMs,
  ): Promise<StoredRun[]> {
    return this.#transaction((trx) =>
      runs.takeExpiredRuns(trx, this.kind, runner, nowMs, leaseExpiresAtMs, limit, deadlineMs),
    );
  }

  /** Starts a clean-up of expired rows when the last one is older than a minute; never awaited by callers. */
  #maintainNow(nowMs: number): void {
    if (nowMs - this.#lastMaintenanceMs < MAINTENANCE_INTERVAL_MS || this.#closing !== undefined) return;
    this.#lastMaintenanceMs = nowMs;
    this.#maintenance = this.#run(async () => {
      await this.#db.deleteFrom('actorkit_idempotency_keys').where('expires_at_ms', '<', nowMs).execute();
      await this.#db
        .deleteFrom('actorkit_stats_applied')
        .where('applied_at_ms', '<', nowMs - APPLIED_ID_RETENTION_MS)
        .execute();
      await runs.deleteFinishedRuns(this.#db, nowMs - this.#runRetentionMs);
    }).catch((error: unknown) => this.#logger.warn('store_cleanup_failed', { store: this.kind, error }));
  }

  async close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#maintenance;
      await (this.#queue?.run(async () => {}) ?? Promise.resolve());
      this.#historyCache?.clear();
      await this.#db.destroy();
      await this.#onClose?.();
    })();
    return this.#closing;
  }
}
