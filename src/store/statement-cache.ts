import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Most prepared statements one connection keeps; the store runs a few dozen distinct texts. */
const STATEMENT_CACHE_SIZE = 256;

/** One SQLite connection of a driver (libSQL, `bun:sqlite`) in the shape Kysely's `SqliteDialect` uses, plus `exec`. */
export interface SqliteConnection {
  /** Prepares a statement; its `all`, `run` and `iterate` take the parameters as one array. */
  prepare(sql: string): SqliteStatement;
  /** Runs SQL text that returns no rows (pragmas, DDL), without keeping a statement. */
  exec(sql: string): void;
  close(): void;
}

/** An SQLite connection as Kysely's `SqliteDialect` uses it, plus `exec` for pragmas. */
export interface CachedSqliteDatabase extends SqliteDatabase {
  /** Runs SQL text that returns no rows (pragmas, DDL), without keeping a statement. */
  exec(sql: string): void;
  /** Statements prepared so far (cache misses), for tests and benchmarks. */
  readonly statementsPrepared: number;
}

/**
 * Opens a connection and keeps each of its prepared statements by its SQL text, at most `capacity` of them
 * (the oldest is dropped first): the store runs the same few statements on every invoke, and
 * preparing them again cost as much as running them. Both drivers reset a statement after each
 * run, so a kept one holds no lock or snapshot between calls.
 * @param open opens the driver's connection (called once the capacity is known to be valid)
 * @param capacity most statements kept (default 256)
 */
export function cacheStatements(open: () => SqliteConnection, capacity = STATEMENT_CACHE_SIZE): CachedSqliteDatabase {
  if (!Number.isSafeInteger(capacity) || capacity < 1)
    throw new RangeError(`statementCacheSize must be a positive integer, got ${String(capacity)}`);
  const connection = open();
  const statements = new Map<string, SqliteStatement>();
  let prepared = 0;
  return {
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = connection.prepare(sql);
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
