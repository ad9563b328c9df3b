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
