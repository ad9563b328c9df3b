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
export function sqlitePrimaryResultCode(error: unknown): string | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return code.split('_', 2).join('_');
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') return PRIMARY_RESULT_CODES[errcode & 0xff];
  return undefined;
}
