import Database from 'libsql';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Most prepared statements one connection keeps; the store runs a few dozen distinct texts. */
const STATEMENT_CACHE_SIZE = 256;

/** Options of `openSqliteDatabase`. */
export interface SqliteDatabaseOptions {
  /** How long a statement waits for another connection's lock before failing, in milliseconds. */
  readonly busyTimeoutMs: number;
  /** Most prepared statements kept (default 256); the oldest is dropped first. */
  readonly statementCacheSize?: number;
}

/** An SQLite connection as Kysely's `SqliteDialect` uses it, plus `exec` for pragmas. */
export interface CachedSqliteDatabase extends SqliteDatabase {
  /** Runs SQL text that returns no rows (pragmas, DDL), without keeping a statement. */
  exec(sql: string): void;
  /** Statements prepared so far (cache misses), for tests and benchmarks. */
  readonly statementsPrepared: number;
}

/**
 * Opens one libSQL connection (`path` is a file path or `:memory:`) for Kysely's
 * `SqliteDialect`, keeping each prepared statement by its SQL text: the store runs the same
 * few statements on every invoke, and preparing them again cost as much as running them.
 * A kept statement is reset after each run by libSQL, so it holds no lock or snapshot between
 * calls.
 * @example
 * const database = openSqliteDatabase('/data/actor.db', { busyTimeoutMs: 10_000 });
 * const db = new Kysely<StoreDatabase>({ dialect: new SqliteDialect({ database }) });
 */
export function openSqliteDatabase(path: string, options: SqliteDatabaseOptions): CachedSqliteDatabase {
  const capacity = options.statementCacheSize ?? STATEMENT_CACHE_SIZE;
  if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`statementCacheSize must be a positive integer, got ${String(capacity)}`);
  const connection = new Database(path, { timeout: options.busyTimeoutMs });
  const statements = new Map<string, SqliteStatement>();
  let prepared = 0;
  return {
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = connection.prepare(sql) as unknown as SqliteStatement;
        prepared += 1;
        if (statements.size >= capacity) statements.delete(statements.keys().next().value as string);
        statements.set(sql, statement);
      }
      return statement;
    },
    exec(sql: string): void {
      connection.exec(sql);
    },
    close(): void {
      statements.clear();
      connection.close();
    },
    get statementsPrepared() {
      return prepared;
    },
  };
}
