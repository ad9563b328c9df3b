// What the database's errors mean to the store, whichever engine and SQLite driver threw them.

/**
 * SQLite's primary result codes the store acts on, by number (the low byte of an extended code):
 * `node:sqlite` gives the number (`errcode`), libSQL and `bun:sqlite` the name (`code`).
 */
const PRIMARY_RESULT_CODES: Readonly<Record<number, string>> = {
  13: 'SQLITE_FULL',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
};

/**
 * The primary result code of an SQLite error, as SQLite names it (`SQLITE_FULL`,
 * `SQLITE_CONSTRAINT`…), whichever driver threw it: libSQL and `bun:sqlite` name the extended
 * code (`SQLITE_CONSTRAINT_CHECK`), `node:sqlite` gives `ERR_SQLITE_ERROR` and the number in
 * `errcode`. Undefined for anything else, and for a number the store does not act on.
 * @param error what a driver threw
 */
function sqlitePrimaryResultCode(error: unknown): string | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return code.split('_', 2).join('_');
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') return PRIMARY_RESULT_CODES[errcode & 0xff];
  return undefined;
}

/**
 * Whether `error` says the database could not grow because its disk (or its size cap) is full:
 * SQLite's `SQLITE_FULL` (from any of its drivers, see `sqlitePrimaryResultCode`) or
 * PostgreSQL's SQLSTATE 53100 `disk_full`. Reads still work then; writes that need space fail
 * until space is freed.
 */
export function isDiskFull(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '53100' || sqlitePrimaryResultCode(error) === 'SQLITE_FULL';
}

/** SQLite's answers to the values of a statement, not to the state of the database (see `sqlitePrimaryResultCode`). */
const SQLITE_REFUSALS: ReadonlySet<string | undefined> = new Set([
  'SQLITE_CONSTRAINT',
  'SQLITE_TOOBIG',
  'SQLITE_MISMATCH',
]);

/**
 * Whether `error` says the database refused the values of what was written rather than being
 * away: a PostgreSQL data exception (SQLSTATE class 22, e.g. 22021 for a NUL in `text`), or an
 * SQLite constraint, size or type refusal (one writer holds the file, so no other write can make
 * the same values pass later). Written again, such a turn would be refused again, for ever,
 * and hold up every turn behind it.
 */
export function isRefusedValue(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    (typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code)) || SQLITE_REFUSALS.has(sqlitePrimaryResultCode(error))
  );
}

/** What SQLite says to a `ROLLBACK` when the transaction is already gone. */
const NO_TRANSACTION = /no transaction is active/i;

/**
 * Whether `error` is SQLite refusing a `ROLLBACK` because no transaction is active: SQLite rolls
 * a transaction back by itself on some errors (`SQLITE_FULL`, `SQLITE_IOERR`, `SQLITE_NOMEM`,
 * `SQLITE_BUSY`), and the store's own `ROLLBACK` that follows must not replace the real error.
 */
export function isNoActiveTransaction(error: unknown): boolean {
  return NO_TRANSACTION.test(error instanceof Error ? error.message : String(error));
}
