import type { SqliteDatabase } from 'kysely';
import { isNoActiveTransaction } from './database-errors.js';

/**
 * SQL text run straight on the store's one SQLite connection, on its cached prepared statements
 * (`cacheStatements`), without Kysely's per-call layers (compiled query, connection provider,
 * result transform: about 34k instructions a statement). The store's `SerialQueue` is what keeps
 * calls apart: these statements and Kysely's never run at once.
 */
export interface SqliteStatements {
  /**
   * Runs `text` with `parameters`, as Kysely's `SqliteDialect` does: the rows for a statement
   * that returns rows (`reader`), none for one that does not.
   */
  query<Row = unknown>(text: string, parameters: readonly unknown[]): Row[];
  /**
   * Runs `work` in a write transaction: `BEGIN IMMEDIATE`, then `COMMIT` once `work` has
   * resolved; when `work` or the commit fails, `ROLLBACK` and the failure rethrown (a rollback
   * SQLite already did by itself is not an error), as Kysely's transactions on the store's
   * `ImmediateSqliteDialect`. A failed `BEGIN` is rethrown as it is.
   */
  transaction<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * The store's statements on `database`, one SQLite connection in the shape Kysely's
 * `SqliteDialect` uses (libSQL, `node:sqlite` or `bun:sqlite` behind `cacheStatements`).
 * @param database the connection the store's Kysely instance also runs on
 * @example
 * const statements = sqliteStatements(database);
 * const [row] = statements.query<{ data_version: number }>('PRAGMA data_version', []);
 */
export function sqliteStatements(database: Pick<SqliteDatabase, 'prepare'>): SqliteStatements {
  function query<Row>(text: string, parameters: readonly unknown[]): Row[] {
    const statement = database.prepare(text);
    if (statement.reader) return statement.all(parameters) as Row[];
    statement.run(parameters);
    return [];
  }
  function rollback(): void {
    try {
      query('rollback', []);
    } catch (error) {
      if (!isNoActiveTransaction(error)) throw error;
    }
  }
  return {
    query,
    async transaction<T>(work: () => Promise<T>): Promise<T> {
      query('begin immediate', []);
      try {
        const result = await work();
        query('commit', []);
        return result;
      } catch (error) {
        rollback();
        throw error;
      }
    },
  };
}
