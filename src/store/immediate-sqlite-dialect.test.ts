import { Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ImmediateSqliteDialect } from './immediate-sqlite-dialect.js';
import { openRuntimeSqlite } from './sqlite-driver.js';

describe('ImmediateSqliteDialect', () => {
  it('a transaction SQLite already rolled back itself (as on SQLITE_FULL) fails with its own error, not "cannot rollback"', async () => {
    const { database } = await openRuntimeSqlite(':memory:', { busyTimeoutMs: 100 });
    const db = new Kysely<Record<string, never>>({ dialect: new ImmediateSqliteDialect({ database }) });
    try {
      const cause = new Error('the real cause');
      await expect(
        db.transaction().execute(async (trx) => {
          await sql`rollback`.execute(trx);
          throw cause;
        }),
      ).rejects.toBe(cause);
      // The connection works on.
      await expect(db.transaction().execute(async () => 1)).resolves.toBe(1);
    } finally {
      await db.destroy();
    }
  });
});
