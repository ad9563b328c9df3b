import type { SqliteStatement } from 'kysely';
import { cacheStatements, type CachedSqliteDatabase } from './statement-cache.js';
import type { SqliteDatabaseOptions } from './sqlite-database.js';

/** The part of a `bun:sqlite` statement the store uses (typed locally: no `@types/bun` needed). */
interface BunStatement {
  /** Names of the columns the statement returns; empty for one that returns no rows. */
  readonly columnNames: readonly string[];
  all(...parameters: unknown[]): unknown[];
  run(...parameters: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  iterate(...parameters: unknown[]): IterableIterator<unknown>;
}

/** The part of a `bun:sqlite` `Database` the store uses. */
interface BunDatabase {
  prepare(sql: string): BunStatement;
  exec(sql: string): void;
  close(throwOnError?: boolean): void;
}

/** The `bun:sqlite` module. */
interface BunSqliteModule {
  readonly Database: new (filename: string, options?: { create?: boolean; readwrite?: boolean }) => BunDatabase;
}

/** Held in a variable so that neither TypeScript nor Node try to resolve Bun's built-in module. */
const BUN_SQLITE = 'bun:sqlite';

/** Whether this process runs under Bun, whose built-in `bun:sqlite` the store then uses. */
export function runsOnBun(): boolean {
  return typeof (globalThis as { Bun?: unknown }).Bun === 'object';
}

/**
 * A `bun:sqlite` statement in the shape Kysely's `SqliteDialect` calls: parameters as one
 * array, and `reader` when the statement returns rows.
 */
function kyselyStatement(statement: BunStatement): SqliteStatement {
  return {
    reader: statement.columnNames.length > 0,
    all: (parameters) => statement.all(...parameters),
    run: (parameters) => statement.run(...parameters),
    iterate: (parameters) => statement.iterate(...parameters),
  };
}

/**
 * Opens one connection of Bun's built-in SQLite (`path` is a file path or `:memory:`) for
 * Kysely's `SqliteDialect`: the same queries and migrations as libSQL, without an N-API module
 * between Bun and SQLite. Statements are kept by their SQL text (`cacheStatements`). Only
 * under Bun (`runsOnBun()`).
 * @example
 * const database = await openBunSqliteDatabase('/data/actor.db', { busyTimeoutMs: 10_000 });
 * const db = new Kysely<StoreDatabase>({ dialect: new SqliteDialect({ database }) });
 */
export async function openBunSqliteDatabase(
  path: string,
  options: SqliteDatabaseOptions,
): Promise<CachedSqliteDatabase> {
  const { Database } = (await import(BUN_SQLITE)) as BunSqliteModule;
  return bunSqliteDatabase(Database, path, options);
}

/**
 * `openBunSqliteDatabase` with the `Database` class given, so its mapping to Kysely's shape is
 * tested under Node with a stand-in.
 * @param Database `bun:sqlite`'s `Database` class, or a stand-in
 * @param path a file path or `:memory:`
 * @param options busy time-out and statement cache size
 */
export function bunSqliteDatabase(
  Database: BunSqliteModule['Database'],
  path: string,
  options: SqliteDatabaseOptions,
): CachedSqliteDatabase {
  if (!Number.isSafeInteger(options.busyTimeoutMs) || options.busyTimeoutMs < 0)
    throw new RangeError(`busyTimeoutMs must be a non-negative integer, got ${String(options.busyTimeoutMs)}`);
  return cacheStatements(() => {
    const connection = new Database(path, { create: true, readwrite: true });
    try {
      connection.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs}`);
    } catch (error) {
      connection.close(false);
      throw error;
    }
    return {
      prepare: (sql) => kyselyStatement(connection.prepare(sql)),
      exec: (sql) => connection.exec(sql),
      close: () => connection.close(false),
    };
  }, options.statementCacheSize);
}
