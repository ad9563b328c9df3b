import Database from 'libsql';
import type { SqliteStatement } from 'kysely';
import { cacheStatements, type CachedSqliteDatabase } from './statement-cache.js';

/** Options of `openSqliteDatabase`. */
export interface SqliteDatabaseOptions {
  /** How long a statement waits for another connection's lock before failing, in milliseconds. */
  readonly busyTimeoutMs: number;
  /** Most prepared statements kept (default 256); the oldest is dropped first. */
  readonly statementCacheSize?: number;
}

/**
 * Opens one libSQL connection (`path` is a file path or `:memory:`) for Kysely's
 * `SqliteDialect`, keeping each prepared statement by its SQL text (`cacheStatements`).
 * @example
 * const database = openSqliteDatabase('/data/actor.db', { busyTimeoutMs: 10_000 });
 * const db = new Kysely<StoreDatabase>({ dialect: new SqliteDialect({ database }) });
 */
export function openSqliteDatabase(path: string, options: SqliteDatabaseOptions): CachedSqliteDatabase {
  return cacheStatements(() => {
    const connection = new Database(path, { timeout: options.busyTimeoutMs });
    return {
      prepare: (sql) => connection.prepare(sql) as unknown as SqliteStatement,
      exec: (sql) => void connection.exec(sql),
      close: () => connection.close(),
    };
  }, options.statementCacheSize);
}
