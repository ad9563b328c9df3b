import type { SqliteStatement } from 'kysely';
import { cacheStatements, type CachedSqliteDatabase } from './statement-cache.js';
import type { SqliteDatabaseOptions } from './sqlite-database.js';

/** The part of a `node:sqlite` `StatementSync` the store uses (typed locally: the project's Node types are Node 20's). */
interface NodeStatement {
  /** The columns the statement returns; empty for one that returns no rows. */
  columns(): readonly unknown[];
  all(...parameters: unknown[]): unknown[];
  run(...parameters: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...parameters: unknown[]): IterableIterator<unknown>;
}

/** The part of a `node:sqlite` `DatabaseSync` the store uses. */
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
}

/** The `node:sqlite` module. */
export interface NodeSqliteModule {
  readonly DatabaseSync: new (path: string) => NodeDatabase;
  readonly StatementSync: { readonly prototype: object };
}

/** The warning Node 22 prints when `node:sqlite` loads; the store's choice of driver is logged instead (`store_opened`). */
const SQLITE_EXPERIMENTAL = /SQLite is an experimental feature/;

/**
 * `node:sqlite` when this Node provides it in the shape the store needs, else undefined: on
 * Node 20 it does not exist, Node 22.5–22.12 hide it behind `--experimental-sqlite`, and
 * releases before 22.16 lack `StatementSync.columns()`. Never under Bun or Deno, which have
 * drivers of their own. Node 22 announces the module with an `ExperimentalWarning` on stderr;
 * that one warning is held back while it loads, so an actor starts without it (Node 24 prints
 * none).
 */
export function loadNodeSqlite(): NodeSqliteModule | undefined {
  const host = globalThis as {
    Bun?: unknown;
    Deno?: unknown;
    process?: NodeJS.Process & { getBuiltinModule?: (id: string) => unknown };
  };
  const process = host.process;
  if (host.Bun !== undefined || host.Deno !== undefined || typeof process?.getBuiltinModule !== 'function')
    return undefined;
  const emitWarning = process.emitWarning;
  process.emitWarning = function withoutSqliteWarning(this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (SQLITE_EXPERIMENTAL.test(typeof warning === 'string' ? warning : warning.message)) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  let sqlite: NodeSqliteModule | undefined;
  try {
    sqlite = process.getBuiltinModule('node:sqlite') as NodeSqliteModule | undefined;
  } catch {
    sqlite = undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
  return typeof (sqlite?.StatementSync.prototype as { columns?: unknown } | undefined)?.columns === 'function'
    ? sqlite
    : undefined;
}

/** libSQL binds `undefined` as NULL; `node:sqlite` refuses it: the store's values bind alike on both. */
const bindable = (parameters: readonly unknown[]) => parameters.map((value) => (value === undefined ? null : value));

/** A `node:sqlite` statement in the shape Kysely's `SqliteDialect` calls. */
function kyselyStatement(statement: NodeStatement): SqliteStatement {
  return {
    reader: statement.columns().length > 0,
    all: (parameters) => statement.all(...bindable(parameters)),
    run: (parameters) => statement.run(...bindable(parameters)),
    iterate: (parameters) => statement.iterate(...bindable(parameters)),
  };
}

/**
 * Opens one connection of Node's built-in SQLite (`path` is a file path or `:memory:`) for
 * Kysely's `SqliteDialect`: the same queries and migrations as libSQL, without an N-API module
 * between Node and SQLite. Statements are kept by their SQL text (`cacheStatements`).
 * @param sqlite the module `loadNodeSqlite()` returned
 * @param path a file path or `:memory:`
 * @param options busy time-out and statement cache size
 * @example
 * const sqlite = loadNodeSqlite();
 * if (sqlite) database = nodeSqliteDatabase(sqlite, '/data/actor.db', { busyTimeoutMs: 10_000 });
 */
export function nodeSqliteDatabase(
  sqlite: NodeSqliteModule,
  path: string,
  options: SqliteDatabaseOptions,
): CachedSqliteDatabase {
  if (!Number.isSafeInteger(options.busyTimeoutMs) || options.busyTimeoutMs < 0)
    throw new RangeError(`busyTimeoutMs must be a non-negative integer, got ${String(options.busyTimeoutMs)}`);
  return cacheStatements(() => {
    const connection = new sqlite.DatabaseSync(path);
    try {
      connection.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs}`);
    } catch (error) {
      connection.close();
      throw error;
    }
    return {
      prepare: (sql) => kyselyStatement(connection.prepare(sql)),
      exec: (sql) => connection.exec(sql),
      close: () => connection.close(),
    };
  }, options.statementCacheSize);
}
