import { openBunSqliteDatabase, runsOnBun } from './bun-sqlite-database.js';
import { loadNodeSqlite, nodeSqliteDatabase } from './node-sqlite-database.js';
import type { SqliteDatabaseOptions } from './sqlite-database.js';
import type { CachedSqliteDatabase } from './statement-cache.js';

/** The SQLite drivers of the store: Bun's built-in one under Bun, Node's where Node has it, libSQL otherwise. */
export type SqliteDriverName = 'bun:sqlite' | 'node:sqlite' | 'libsql';

/**
 * Opens an SQLite connection with this runtime's fastest driver: `bun:sqlite` under Bun,
 * `node:sqlite` on a Node that provides it (22.16 and later, see `loadNodeSqlite`), libSQL on
 * older Node and on Deno. Each is loaded only when chosen, so Bun and a recent Node never load
 * libSQL's native module.
 * @param path a file path or `:memory:`
 * @param options busy time-out and statement cache size
 * @param driver the driver to use; by default the runtime's. `node:sqlite` where Node lacks it throws.
 */
export async function openRuntimeSqlite(
  path: string,
  options: SqliteDatabaseOptions,
  driver?: SqliteDriverName,
): Promise<{ readonly driver: SqliteDriverName; readonly database: CachedSqliteDatabase }> {
  if (driver === 'bun:sqlite' || (driver === undefined && runsOnBun()))
    return { driver: 'bun:sqlite', database: await openBunSqliteDatabase(path, options) };
  if (driver !== 'libsql') {
    const sqlite = loadNodeSqlite();
    if (sqlite !== undefined) return { driver: 'node:sqlite', database: nodeSqliteDatabase(sqlite, path, options) };
    if (driver === 'node:sqlite')
      throw new Error('node:sqlite is not available on this runtime: it needs Node 22.16 or later');
  }
  const { openSqliteDatabase } = await import('./sqlite-database.js');
  return { driver: 'libsql', database: openSqliteDatabase(path, options) };
}
