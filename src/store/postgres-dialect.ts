import { PostgresAdapter, PostgresDialect, sql, type Kysely, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';

// How the store talks to PostgreSQL through Kysely: the dialect (its migration lock) and the pool
// (its per-query deadline). Imported only when DATABASE_URL names PostgreSQL, so SQLite actors
// never load `pg`.

/** Advisory-lock class of actorkit migrations (the second key is the schema's hash). */
const MIGRATION_LOCK_CLASS = 0x61_6b_74_6d;

const migrationLockKey = sql`${sql.lit(MIGRATION_LOCK_CLASS)}::integer, hashtext(coalesce(current_schema(), ''))`;

/**
 * Kysely's PostgreSQL adapter with the migration lock keyed by the current schema instead of
 * one fixed id for the whole database, so actors in different schemas of one database migrate
 * independently while replicas of one actor wait for each other. The lock is a session lock
 * held across Kysely's migration transaction; while it is held the connection has no
 * statement time-out, because waiting for another replica and long DDL are both expected.
 */
class SchemaLockedPostgresAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`set statement_timeout = 0`.execute(db);
    await sql`select pg_advisory_lock(${migrationLockKey})`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    // When the connection broke, the server has released the lock with the session.
    await sql`select pg_advisory_unlock(${migrationLockKey})`.execute(db).catch(() => {});
    await sql`reset statement_timeout`.execute(db).catch(() => {});
  }
}

/** Kysely's `PostgresDialect` whose migrations lock the current schema only (see `SchemaLockedPostgresAdapter`). */
export class SchemaLockedPostgresDialect extends PostgresDialect {
  override createAdapter(): PostgresAdapter {
    return new SchemaLockedPostgresAdapter();
  }
}

/**
 * Kysely's view of a `pg` pool in which every query gives up after `queryTimeoutMs` (pg's
 * client-side `query_timeout`; none when undefined). A connection whose query failed without
 * an answer from the server (a time-out, a broken socket) is discarded when released, not
 * reused: its socket may still wait for that answer, and the pool would stay wedged behind it.
 * Ending it ends the shared pool.
 * @param pool the `pg` pool
 * @param queryTimeoutMs the longest wait of one query, in milliseconds
 */
export function deadlinePool(pool: pg.Pool, queryTimeoutMs: number | undefined): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      let broken: Error | undefined;
      const bounded = {
        async query(text: string, values: readonly unknown[]) {
          try {
            return await client.query({
              text,
              values: [...values],
              ...(queryTimeoutMs === undefined ? {} : { query_timeout: queryTimeoutMs }),
            });
          } catch (error) {
            if (!(error instanceof pg.DatabaseError))
              broken = error instanceof Error ? error : new Error(String(error));
            throw error;
          }
        },
        release: () => client.release(broken),
      };
      return bounded as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
