import { sqlitePrimaryResultCode } from './sqlite-result-code.js';

/**
 * Whether `error` says the database could not grow because its disk (or its size cap) is full:
 * SQLite's `SQLITE_FULL` (from any of its drivers, see `sqlitePrimaryResultCode`) or
 * PostgreSQL's SQLSTATE 53100 `disk_full`. Reads still work then; writes that need space fail
 * until space is freed.
 */
export function isDiskFull(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '53100' || sqlitePrimaryResultCode(error) === 'SQLITE_FULL';
}
