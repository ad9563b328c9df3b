import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import type { StoreDatabase } from './store-database.js';
import { STORE_MIGRATIONS, type StoreEngine, type StoreMigration } from './store-migrations.js';

/** Where applied migrations are recorded: the table name the store has always used. */
const MIGRATION_TABLE = 'actorkit_migrations';
/** Kysely's lock row table; unused by the store's dialects, whose locks live elsewhere, but `Migrator` creates it. */
const MIGRATION_LOCK_TABLE = 'actorkit_migrations_lock';

/** Whether the migration table still has the store's former `applied_at` column (Kysely's is `timestamp`). */
async function hasLegacyMigrationColumn(db: Kysely<StoreDatabase>, engine: StoreEngine): Promise<boolean> {
  const query =
    engine === 'postgres'
      ? sql<{ found: number }>`select 1 as found from information_schema.columns
          where table_schema = current_schema() and table_name = ${MIGRATION_TABLE} and column_name = 'applied_at'`
      : sql<{ found: number }>`select 1 as found from pragma_table_info(${MIGRATION_TABLE}) where name = 'applied_at'`;
  return (await query.execute(db)).rows.length > 0;
}

/**
 * Turns the table of the store's former migration loop, `actorkit_migrations (name,
 * applied_at)`, into the layout of Kysely's `Migrator` by renaming `applied_at` to `timestamp`,
 * so a database created before keeps its record and runs no migration twice. Replicas may race
 * here: the one whose rename fails because another renamed first carries on.
 */
async function adoptLegacyMigrationTable(db: Kysely<StoreDatabase>, engine: StoreEngine): Promise<void> {
  if (!(await hasLegacyMigrationColumn(db, engine))) return;
  try {
    await sql`alter table ${sql.table(MIGRATION_TABLE)} rename column applied_at to ${sql.ref('timestamp')}`.execute(db);
  } catch (error) {
    if (await hasLegacyMigrationColumn(db, engine)) throw error;
  }
}

async function currentSchema(db: Kysely<StoreDatabase>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (schema === undefined || schema === null) throw new Error('PostgreSQL has no current schema: set search_path to an existing schema');
  return schema;
}

/**
 * Applies the migrations not yet recorded with Kysely's `Migrator`, all in one transaction under
 * the dialect's migration lock (a PostgreSQL advisory lock keyed by the current schema, an
 * SQLite `BEGIN IMMEDIATE`; see `SchemaLockedPostgresDialect` and `ImmediateSqliteDialect`),
 * and returns their names. On PostgreSQL the record lives in the current schema, so each schema
 * is migrated on its own.
 */
export async function migrateStore(db: Kysely<StoreDatabase>, engine: StoreEngine, migrations: readonly StoreMigration[] = STORE_MIGRATIONS): Promise<string[]> {
  // Without a schema, Kysely would take another schema's migration table for this one's.
  const schema = engine === 'postgres' ? await currentSchema(db) : undefined;
  await adoptLegacyMigrationTable(db, engine);
  const byName: Record<string, Migration> = Object.fromEntries(migrations.map((migration) => [migration.name, migration]));
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => byName },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) throw error instanceof Error ? error : new Error(`Migration failed: ${String(error)}`, { cause: error });
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
