import { openBunSqliteDatabase, runsOnBun } from './bun-sqlite-database.js';
import type { SqliteDatabaseOptions } from './sqlite-database.js';
import type { CachedSqliteDatabase } from './statement-cache.js';

/** The SQLite drivers of the store: Bun's built-in one under Bun, libSQL on Node and Deno. */
export type SqliteDriverName = 'bun:sqlite' | 'libsql';

/**
 * Opens an SQLite connection with this runtime's driver: `bun:sqlite` under Bun, libSQL on
 * Node and Deno. Each is loaded only when chosen, so Bun never loads libSQL's native module.
 * @param path a file path or `:memory:`
 * @param options busy time-out and statement cache size
 * @param driver the driver to use; by default the runtime's
 */
export async function openRuntimeSqlite(
  path: string,
  options: SqliteDatabaseOptions,
  driver: SqliteDriverName = runsOnBun() ? 'bun:sqlite' : 'libsql',
): Promise<{ readonly driver: SqliteDriverName; readonly database: CachedSqliteDatabase }> {
  if (driver === 'bun:sqlite') return { driver, database: await openBunSqliteDatabase(path, options) };
  const { openSqliteDatabase } = await import('./sqlite-database.js');
  return { driver, database: openSqliteDatabase(path, options) };
}
