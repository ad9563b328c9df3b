import { SqliteAdapter, sql, type Kysely } from 'kysely';
import type { StoreDatabase } from './store-database.js';

/** One schema change, written once with Kysely's schema builder for SQLite and PostgreSQL. */
export interface StoreMigration {
  /** Unique, and sorts after every earlier migration's; recorded in `actorkit_migrations` once applied. */
  readonly name: string;
  /** Runs inside the migration transaction (both engines have transactional DDL). */
  up(db: Kysely<StoreDatabase>): Promise<void>;
}

/** The engines a store runs on. */
export type StoreEngine = 'sqlite' | 'postgres';

const initialSchema: StoreMigration = {
  name: '0001_initial',
  async up(db) {
    /** Adds a 64-bit counter column that starts at zero. */
    const counterColumn = (name: string) => (table: ReturnType<typeof db.schema.createTable>) =>
      table.addColumn(name, 'bigint', (column) => column.notNull().defaultTo(0));
    await db.schema
      .createTable('actorkit_meta')
      .addColumn('key', 'text', (column) => column.primaryKey())
      .addColumn('value', 'text', (column) => column.notNull())
      .execute();
    await db.insertInto('actorkit_meta').values({ key: 'created_at', value: new Date().toISOString() }).execute();

    let counters = db.schema
      .createTable('actorkit_stats_counters')
      .addColumn('tenant_id', 'text', (column) => column.primaryKey());
    for (const name of ['invocations', 'errors', 'input_tokens', 'output_tokens', 'tool_calls'])
      counters = counterColumn(name)(counters);
    counters = counters
      .addColumn('latency_ms_total', 'double precision', (column) => column.notNull().defaultTo(0))
      .addColumn('latency_ms_max', 'double precision', (column) => column.notNull().defaultTo(0))
      .addColumn('first_invoked_at_ms', 'bigint', (column) => column.notNull())
      .addColumn('last_invoked_at_ms', 'bigint', (column) => column.notNull());
    for (const name of ['sessions', 'users']) counters = counterColumn(name)(counters);
    await counters.execute();

    await counterColumn('users')(
      db.schema.createTable('actorkit_stats_totals').addColumn('id', 'integer', (column) => column.primaryKey()),
    ).execute();
    await db.insertInto('actorkit_stats_totals').values({ id: 1, users: 0 }).execute();

    await db.schema
      .createTable('actorkit_stats_sessions')
      .addColumn('tenant_id', 'text', (column) => column.notNull())
      .addColumn('session_id', 'text', (column) => column.notNull())
      .addPrimaryKeyConstraint('actorkit_stats_sessions_pk', ['tenant_id', 'session_id'])
      .execute();
    await db.schema
      .createTable('actorkit_stats_users')
      .addColumn('tenant_id', 'text', (column) => column.notNull())
      .addColumn('user_identifier', 'text', (column) => column.notNull())
      .addPrimaryKeyConstraint('actorkit_stats_users_pk', ['tenant_id', 'user_identifier'])
      .execute();
    await db.schema
      .createTable('actorkit_stats_all_users')
      .addColumn('user_identifier', 'text', (column) => column.primaryKey())
      .execute();
    await db.schema
      .createTable('actorkit_stats_applied')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('applied_at_ms', 'bigint', (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex('actorkit_stats_applied_at_idx')
      .on('actorkit_stats_applied')
      .column('applied_at_ms')
      .execute();

    await db.schema
      .createTable('actorkit_chat_sessions')
      .addColumn('tenant_id', 'text', (column) => column.notNull())
      .addColumn('session_id', 'text', (column) => column.notNull())
      .addColumn('message_count', 'bigint', (column) => column.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (column) => column.notNull())
      .addColumn('updated_at', 'text', (column) => column.notNull())
      .addPrimaryKeyConstraint('actorkit_chat_sessions_pk', ['tenant_id', 'session_id'])
      .execute();
    await db.schema
      .createTable('actorkit_chat_messages')
      .addColumn('tenant_id', 'text', (column) => column.notNull())
      .addColumn('session_id', 'text', (column) => column.notNull())
      .addColumn('position', 'bigint', (column) => column.notNull())
      .addColumn('id', 'text', (column) => column.notNull())
      .addColumn('role', 'text', (column) => column.notNull())
      .addColumn('content', 'text', (column) => column.notNull())
      .addColumn('data', 'text')
      .addColumn('created_at', 'text', (column) => column.notNull())
      .addPrimaryKeyConstraint('actorkit_chat_messages_pk', ['tenant_id', 'session_id', 'position'])
      .execute();

    await db.schema
      .createTable('actorkit_settings_overrides')
      .addColumn('scope', 'text', (column) => column.primaryKey())
      .addColumn('overrides', 'text', (column) => column.notNull())
      .addColumn('updated_at', 'text', (column) => column.notNull())
      .execute();
    await db.schema
      .createTable('actorkit_oauth_tokens')
      .addColumn('tenant_id', 'text', (column) => column.notNull())
      .addColumn('provider', 'text', (column) => column.notNull())
      .addColumn('access_token', 'text', (column) => column.notNull())
      .addColumn('refresh_token', 'text')
      .addColumn('token_type', 'text', (column) => column.notNull())
      .addColumn('scope', 'text')
      .addColumn('expires_at', 'text')
      .addColumn('updated_at', 'text', (column) => column.notNull())
      .addPrimaryKeyConstraint('actorkit_oauth_tokens_pk', ['tenant_id', 'provider'])
      .execute();
    await db.schema
      .createTable('actorkit_idempotency_keys')
      .addColumn('key', 'text', (column) => column.primaryKey())
      .addColumn('fingerprint', 'text', (column) => column.notNull())
      .addColumn('state', 'text', (column) => column.notNull())
      .addColumn('status', 'integer')
      .addColumn('body', 'text')
      .addColumn('expires_at_ms', 'bigint', (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex('actorkit_idempotency_expiry_idx')
      .on('actorkit_idempotency_keys')
      .column('expires_at_ms')
      .execute();
  },
};

const oauthStates: StoreMigration = {
  name: '0002_oauth_states',
  async up(db) {
    await db.schema
      .createTable('actorkit_oauth_states')
      .addColumn('state', 'text', (column) => column.primaryKey())
      .addColumn('record', 'text', (column) => column.notNull())
      .addColumn('expires_at_ms', 'bigint', (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex('actorkit_oauth_states_expiry_idx')
      .on('actorkit_oauth_states')
      .column('expires_at_ms')
      .execute();
  },
};

/**
 * Rebuilds `table` on SQLite as a `WITHOUT ROWID` table whose rows sit in the order of its
 * primary key, copying its rows: `columns` is the table's column list with types and key.
 */
async function clusterSqliteTable(db: Kysely<StoreDatabase>, table: string, columns: string): Promise<void> {
  const rebuilt = `${table}_clustered`;
  await sql`create table ${sql.table(rebuilt)} (${sql.raw(columns)}) without rowid`.execute(db);
  await sql`insert into ${sql.table(rebuilt)} select * from ${sql.table(table)}`.execute(db);
  await sql`drop table ${sql.table(table)}`.execute(db);
  await sql`alter table ${sql.table(rebuilt)} rename to ${sql.table(table)}`.execute(db);
}

/**
 * SQLite only (PostgreSQL's tables are heaps with separate indexes either way): the two tables
 * every invoke inserts into become `WITHOUT ROWID`, so a row is written once, into its primary
 * key's B-tree, instead of into the table and again into the key's index. A turn's messages
 * then land on its session's last page, and counted record ids (time-ordered) on the last page
 * of theirs: fewer pages written per invoke.
 */
const clusteredSqliteTables: StoreMigration = {
  name: '0003_clustered_sqlite_tables',
  async up(db) {
    if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
    await clusterSqliteTable(
      db,
      'actorkit_stats_applied',
      'id text not null primary key, applied_at_ms bigint not null',
    );
    await db.schema
      .createIndex('actorkit_stats_applied_at_idx')
      .on('actorkit_stats_applied')
      .column('applied_at_ms')
      .execute();
  },
};

/**
 * The runs part: a run per invoke (its state, lease and result) and its stream parts in
 * batches. Run ids sort by creation time, so the rows a flush writes land on the tables' last
 * pages; on SQLite both tables are `WITHOUT ROWID` (a row written once, into its key's B-tree).
 * The session index holds only runs in progress (what a resume looks for) and the lease index
 * only leased rows: a run that ends before its first write touches neither.
 */
const runs: StoreMigration = {
  name: '0004_runs',
  async up(db) {
    const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
    const withoutRowid = <T extends { modifyEnd(fragment: ReturnType<typeof sql.raw>): T }>(table: T) =>
      sqlite ? table.modifyEnd(sql.raw('without rowid')) : table;
    const counter = (table: ReturnType<typeof db.schema.createTable>, name: string) =>
      table.addColumn(name, 'bigint', (column) => column.notNull().defaultTo(0));
    let table = db.schema
      .createTable('actorkit_runs')
      .addColumn('id', 'text', (column) => column.primaryKey().notNull())
      .addColumn('tenant_id', 'text', (column) => column.notNull())
      .addColumn('session_id', 'text', (column) => column.notNull())
      .addColumn('state', 'text', (column) => column.notNull())
      .addColumn('background', 'integer', (column) => column.notNull().defaultTo(0))
      .addColumn('created_at_ms', 'bigint', (column) => column.notNull())
      .addColumn('finished_at_ms', 'bigint');
    table = counter(counter(table, 'input_tokens'), 'output_tokens')
      .addColumn('reply', 'text')
      .addColumn('problem', 'text')
      .addColumn('runner', 'text')
      .addColumn('lease_expires_at_ms', 'bigint')
      .addColumn('cancel_requested', 'integer', (column) => column.notNull().defaultTo(0));
    table = counter(table, 'last_seq')
      .addColumn('request', 'text', (column) => column.notNull())
      .addColumn('side_effects', 'integer', (column) => column.notNull().defaultTo(0));
    await withoutRowid(table).execute();
    await db.schema
      .createIndex('actorkit_runs_active_idx')
      .on('actorkit_runs')
      .columns(['tenant_id', 'session_id', 'created_at_ms'])
      .where(sql.ref('finished_at_ms'), 'is', null)
      .execute();
    await db.schema
      .createIndex('actorkit_runs_lease_idx')
      .on('actorkit_runs')
      .column('lease_expires_at_ms')
      .where(sql.ref('lease_expires_at_ms'), 'is not', null)
      .execute();
    await withoutRowid(
      db.schema
        .createTable('actorkit_run_parts')
        .addColumn('run_id', 'text', (column) => column.notNull())
        .addColumn('first_seq', 'bigint', (column) => column.notNull())
        .addColumn('last_seq', 'bigint', (column) => column.notNull())
        .addColumn('parts', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('actorkit_run_parts_pk', ['run_id', 'first_seq']),
    ).execute();
  },
};

/** A run's tool calls waiting for a person's approval, and the decisions so far (issue 38). */
const runApprovals: StoreMigration = {
  name: '0005_run_approvals',
  async up(db) {
    await db.schema.alterTable('actorkit_runs').addColumn('approvals', 'text').execute();
  },
};

/** Every migration of the store, oldest first; Kysely's `Migrator` runs them by name order. */
export const STORE_MIGRATIONS: readonly StoreMigration[] = [
  initialSchema,
  oauthStates,
  clusteredSqliteTables,
  runs,
  runApprovals,
];
