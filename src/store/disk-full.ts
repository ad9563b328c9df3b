/**
 * Whether `error` says the database could not grow because its disk (or its size cap) is full:
 * SQLite's `SQLITE_FULL` (libSQL and `bun:sqlite` name it in `code`) or PostgreSQL's SQLSTATE
 * 53100 `disk_full`. Reads still work then; writes that need space fail until space is freed.
 */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === '53100';
}
