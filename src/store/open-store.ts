import { mkdir, open } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Kysely } from 'kysely';
import { createLogger, type Logger } from '../log/logger.js';
import { ImmediateSqliteDialect } from './immediate-sqlite-dialect.js';
import { parseDatabaseUrl, redactDatabaseUrl, type DatabaseTarget } from './database-url.js';
import { SqlStore } from './sql-store.js';
import { openRuntimeSqlite, type SqliteDriverName } from './sqlite-driver.js';
import type { Store } from './store.js';
import type { StoreDatabase } from './store-database.js';
import { ENVIRONMENT_VARIABLES } from '../environment/environment-variables.js';

/** Options of `openStore`. */
export interface OpenStoreOptions {
  /** `DATABASE_URL`: unset → the SQLite file `<dataDir>/actor.db`; `memory://`; `file:<path>`; `postgres://…`. */
  readonly url?: string;
  /** `DATA_DIR`: where the default SQLite file lives; created when missing. Default `.actorkit/data`. */
  readonly dataDir?: string;
  /** Most PostgreSQL connections this process opens (default 10); SQLite uses one. */
  readonly poolSize?: number;
  /** PostgreSQL `statement_timeout` and SQLite busy time-out, in milliseconds (default 10,000). */
  readonly statementTimeoutMs?: number;
  /** Longest wait for a PostgreSQL connection (a new one, or a free one of the pool), in milliseconds (default 5,000). */
  readonly connectTimeoutMs?: number;
  /**
   * Longest wait for the answer to one PostgreSQL query (migrations excepted), in milliseconds;
   * the connection of a query that outlives it is discarded. Default: no client-side limit.
   */
  readonly queryTimeoutMs?: number;
  /**
   * The SQLite driver; by default the runtime's fastest (`bun:sqlite` under Bun, `node:sqlite`
   * on Node 22.16 and later, libSQL otherwise). Ignored for PostgreSQL.
   */
  readonly sqliteDriver?: SqliteDriverName;
  readonly logger?: Logger;
}

/** `DATA_DIR` when none is given. */
const DEFAULT_DATA_DIR = ENVIRONMENT_VARIABLES.DATA_DIR.default;

function positiveInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  return value;
}

function describe(target: DatabaseTarget): string {
  if (target.engine === 'postgres') return `PostgreSQL at ${redactDatabaseUrl(target.url)}`;
  return target.location === 'memory' ? 'in-memory SQLite' : `SQLite file ${target.path}`;
}

/**
 * Creates the SQLite file's folders (0700) and the file itself (0600) when missing, before SQLite
 * opens it: the database holds secret setting overrides, OAuth tokens and chat history. SQLite
 * gives its WAL and shared-memory files the mode of the database file. Existing folders and files
 * keep their modes.
 */
async function createPrivately(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await (await open(path, 'a', 0o600)).close();
}

async function openSqlite(
  target: Extract<DatabaseTarget, { engine: 'sqlite' }>,
  busyTimeoutMs: number,
  requestedDriver: SqliteDriverName | undefined,
  logger: Logger,
): Promise<{ store: SqlStore; driver: SqliteDriverName }> {
  let path = ':memory:';
  if (target.location === 'file') {
    path = resolve(target.path);
    await createPrivately(path);
  }
  // One connection: the store runs its calls one at a time anyway (see SerialQueue).
  const { database, driver } = await openRuntimeSqlite(path, { busyTimeoutMs }, requestedDriver);
  try {
    if (target.location === 'file') {
      const [mode] = database.prepare('PRAGMA journal_mode = WAL').all([]) as { journal_mode?: unknown }[];
      const journal = String(mode?.journal_mode ?? '');
      if (journal.toLowerCase() !== 'wal')
        logger.warn('sqlite_wal_unavailable', { journal_mode: journal, path: target.path });
      // In WAL mode, NORMAL survives any process crash (SIGKILL included); only an OS crash or
      // power loss can undo the last commits. FULL would fsync every commit: 20-25x slower here.
      database.exec('PRAGMA synchronous = NORMAL');
    }
  } catch (error) {
    database.close();
    throw error;
  }
  const db = new Kysely<StoreDatabase>({ dialect: new ImmediateSqliteDialect({ database }) });
  return { store: new SqlStore({ db, sqliteConnection: database, engine: 'sqlite', logger }), driver };
}

async function openPostgres(
  url: string,
  options: {
    poolSize: number;
    statementTimeoutMs: number;
    connectTimeoutMs: number;
    queryTimeoutMs: number | undefined;
  },
  logger: Logger,
): Promise<SqlStore> {
  // Imported here, so an actor on SQLite never loads the PostgreSQL driver.
  const [{ default: pg }, { SchemaLockedPostgresDialect, deadlinePool }] = await Promise.all([
    import('pg'),
    import('./postgres-dialect.js'),
  ]);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    statement_timeout: options.statementTimeoutMs,
    connectionTimeoutMillis: options.connectTimeoutMs,
    keepAlive: true,
    application_name: 'actorkit',
  });
  // A connection that breaks (database restart, network cut) must not crash the process: pg
  // emits 'error' on the client, idle or busy, and an unheard 'error' event is thrown.
  const connectionLost = (error: Error) => logger.warn('database_connection_lost', { store: 'postgres', error });
  pool.on('error', connectionLost);
  pool.on('connect', (client) => client.on('error', connectionLost));
  const db = new Kysely<StoreDatabase>({
    dialect: new SchemaLockedPostgresDialect({ pool: deadlinePool(pool, options.queryTimeoutMs) }),
  });
  // Migrations wait for other replicas' and for long DDL: no query deadline (same pool, never destroyed on its own).
  const migrationDb = new Kysely<StoreDatabase>({
    dialect: new SchemaLockedPostgresDialect({ pool: deadlinePool(pool, undefined) }),
  });
  const deadline = options.queryTimeoutMs === undefined ? {} : { query_timeout: options.queryTimeoutMs };
  // pool.query discards a connection whose query failed, so a timed-out one is not reused.
  const prepared = async (name: string, text: string, values: readonly unknown[]) =>
    (await pool.query({ name, text, values: [...values], ...deadline })).rows as unknown[];
  return new SqlStore({ db, migrationDb, engine: 'postgres', logger, prepared });
}

/**
 * Opens the store `DATABASE_URL` names and checks that the database answers; it does not
 * migrate (call `store.migrate()`). Throws `DatabaseUrlError` for a URL it cannot use, a
 * `RangeError` for a bad pool size or time-out, and an error naming the file when SQLite
 * cannot be opened. A PostgreSQL that does not answer yet (replicas may start before their
 * database) is logged as `store_database_unreachable`, naming the server but never its
 * password, and the store is returned anyway: its calls reject until the server answers,
 * then work without reopening.
 * @example
 * const store = await openStore({ url: process.env.DATABASE_URL, dataDir: process.env.DATA_DIR });
 * await store.migrate();
 */
export async function openStore(options: OpenStoreOptions = {}): Promise<Store> {
  const poolSize = positiveInteger(options.poolSize, 'poolSize', ENVIRONMENT_VARIABLES.DATABASE_POOL_SIZE.default);
  const statementTimeoutMs = positiveInteger(
    options.statementTimeoutMs,
    'statementTimeoutMs',
    ENVIRONMENT_VARIABLES.DATABASE_STATEMENT_TIMEOUT_MS.default,
  );
  const connectTimeoutMs = positiveInteger(options.connectTimeoutMs, 'connectTimeoutMs', 5_000);
  const queryTimeoutMs =
    options.queryTimeoutMs === undefined ? undefined : positiveInteger(options.queryTimeoutMs, 'queryTimeoutMs', 0);
  const logger = options.logger ?? createLogger();
  const target = parseDatabaseUrl(options.url, options.dataDir ?? DEFAULT_DATA_DIR);
  const database = describe(target);
  if (target.engine === 'postgres') {
    const store = await openPostgres(
      target.url,
      { poolSize, statementTimeoutMs, connectTimeoutMs, queryTimeoutMs },
      logger,
    );
    try {
      await store.ping();
      logger.info('store_opened', { store: store.kind, driver: 'pg', database });
    } catch (error) {
      logger.warn('store_database_unreachable', { store: store.kind, database, error });
    }
    return store;
  }
  let store: SqlStore | undefined;
  let driver: SqliteDriverName | undefined;
  try {
    ({ store, driver } = await openSqlite(target, statementTimeoutMs, options.sqliteDriver, logger));
    await store.ping();
  } catch (error) {
    await store?.close().catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot open ${database}: ${reason}`, { cause: error });
  }
  logger.info('store_opened', { store: store.kind, driver, database });
  return store;
}
