import { MIGRATION_LOCK_ID, Migrator, sql, type Kysely, type Migration } from 'kysely';
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
    await sql`alter table ${sql.table(MIGRATION_TABLE)} rename column applied_at to ${sql.ref('timestamp')}`.execute(
      db,
    );
  } catch (error) {
    if (await hasLegacyMigrationColumn(db, engine)) throw error;
  }
}

async function currentSchema(db: Kysely<StoreDatabase>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (schema === undefined || schema === null)
    throw new Error('PostgreSQL has no current schema: set search_path to an existing schema');
  return schema;
}

/**
 * Whether `a` and `b` sort the same by code units as by locale: true when they first differ at two
 * ASCII digits (as migration names do, `0001_…`, `0002_…`), which ICU's root collation orders at
 * its first level exactly as their code units.
 */
function sortsAlikeByLocale(a: string, b: string): boolean {
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index += 1;
  return /^[0-9]$/.test(a[index] ?? '') && /^[0-9]$/.test(b[index] ?? '');
}

/**
 * Whether an SQLite store already has what Kysely's `Migrator` would check or create (its
 * migration table, lock table and lock row) and has applied exactly `names`, in the order the
 * `Migrator` reads them (by time, then by name) — so `migrateToLatest` would apply nothing and
 * refuse nothing. Three reads, where the `Migrator` reads every table's columns twice (schema
 * introspection) and takes the write lock: about 2% of a Node start. Whatever this cannot
 * decide without comparing by locale (as the `Migrator` does for equal times, which loads ICU's
 * collator) is left to the `Migrator`.
 * @param db the store's database
 * @param names every migration's name, sorted as the `Migrator` sorts them
 */
async function sqliteStoreIsCurrent(db: Kysely<StoreDatabase>, names: readonly string[]): Promise<boolean> {
  const { rows: tables } = await sql<{
    name: string;
  }>`select name from sqlite_master where type = 'table' and name in (${MIGRATION_TABLE}, ${MIGRATION_LOCK_TABLE})`.execute(
    db,
  );
  if (tables.length !== 2) return false;
  const { rows: lockRows } =
    await sql`select id from ${sql.table(MIGRATION_LOCK_TABLE)} where id = ${MIGRATION_LOCK_ID}`.execute(db);
  if (lockRows.length === 0) return false;
  const { rows: applied } = await sql<{
    name: string;
    timestamp: string;
  }>`select name, ${sql.ref('timestamp')} from ${sql.table(MIGRATION_TABLE)}`.execute(db);
  if (applied.length !== names.length) return false;
  const time = (row: { timestamp: string }) => new Date(row.timestamp).getTime();
  if (applied.some((row) => Number.isNaN(time(row)))) return false;
  const inOrder = [...applied].sort((a, b) =>
    a.timestamp === b.timestamp ? (a.name < b.name ? -1 : 1) : time(a) - time(b),
  );
  for (let index = 1; index < inOrder.length; index += 1) {
    const [before, after] = [inOrder[index - 1]!, inOrder[index]!];
    if (
      before.timestamp === after.timestamp ? !sortsAlikeByLocale(before.name, after.name) : time(before) === time(after)
    )
      return false;
  }
  return inOrder.every((row, index) => row.name === names[index]);
}

/**
 * Applies the migrations not yet recorded with Kysely's `Migrator`, all in one transaction under
 * the dialect's migration lock (a PostgreSQL advisory lock keyed by the current schema, an
 * SQLite `BEGIN IMMEDIATE`; see `SchemaLockedPostgresDialect` and `ImmediateSqliteDialect`),
 * and returns their names. On PostgreSQL the record lives in the current schema, so each schema
 * is migrated on its own. An SQLite store that is up to date is told so by three reads
 * (`sqliteStoreIsCurrent`), without the `Migrator`.
 */
export async function migrateStore(
  db: Kysely<StoreDatabase>,
  engine: StoreEngine,
  migrations: readonly StoreMigration[] = STORE_MIGRATIONS,
): Promise<string[]> {
  // Without a schema, Kysely would take another schema's migration table for this one's.
  const schema = engine === 'postgres' ? await currentSchema(db) : undefined;
  await adoptLegacyMigrationTable(db, engine);
  if (engine === 'sqlite' && (await sqliteStoreIsCurrent(db, migrations.map((migration) => migration.name).sort())))
    return [];
  const byName: Record<string, Migration> = Object.fromEntries(
    migrations.map((migration) => [migration.name, migration]),
  );
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => byName },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined)
    throw error instanceof Error ? error : new Error(`Migration failed: ${String(error)}`, { cause: error });
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
