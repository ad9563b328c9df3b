import { PostgresAdapter, PostgresDialect, sql, type Kysely } from 'kysely';

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
