import type { SqliteDriverName } from '../../src/store/sqlite-driver.js';

/** Set by `sqlite-drivers.test.ts` for the store tests it runs under another runtime: the driver they must find. */
export const EXPECTED_SQLITE_DRIVER_VARIABLE = 'ACTORKIT_TEST_EXPECTED_SQLITE_DRIVER';

/** The SQLite driver the store must choose here: the one the spawning test names, else libSQL (the machine's Node 20). */
export function expectedSqliteDriver(): SqliteDriverName {
  return (process.env[EXPECTED_SQLITE_DRIVER_VARIABLE] as SqliteDriverName | undefined) ?? 'libsql';
}
