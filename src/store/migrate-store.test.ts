import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { ImmediateSqliteDialect } from './immediate-sqlite-dialect.js';
import { migrateStore } from './migrate-store.js';
import { openSqliteDatabase } from './sqlite-database.js';
import type { StoreDatabase } from './store-database.js';
import type { StoreMigration } from './store-migrations.js';

const opened: Kysely<StoreDatabase>[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.destroy()));
});

function memoryDatabase(): Kysely<StoreDatabase> {
  const db = new Kysely<StoreDatabase>({
    dialect: new ImmediateSqliteDialect({ database: openSqliteDatabase(':memory:', { busyTimeoutMs: 1_000 }) }),
  });
  opened.push(db);
  return db;
}

const createTable = (name: string): StoreMigration => ({
  name,
  async up(db) {
    await sql`create table ${sql.table(`table_${name}`)} (id integer primary key)`.execute(db);
  },
});

async function tableNames(db: Kysely<StoreDatabase>): Promise<string[]> {
  const { rows } = await sql<{
    name: string;
  }>`select name from sqlite_master where type = 'table' and name like 'table_%' order by name`.execute(db);
  return rows.map((row) => row.name);
}

/** An in-memory SQLite store database that notes the SQL of every statement it runs. */
function statementRecordingDatabase(): { readonly db: Kysely<StoreDatabase>; readonly statements: string[] } {
  const statements: string[] = [];
  const database = openSqliteDatabase(':memory:', { busyTimeoutMs: 1_000 });
  const db = new Kysely<StoreDatabase>({
    dialect: new ImmediateSqliteDialect({ database }),
    log: (event) => void statements.push(event.query.sql),
  });
  opened.push(db);
  return { db, statements };
}

/** Fails, listing them, unless every statement was a read. */
function expectSelectsOnly(statements: readonly string[]): void {
  expect(
    statements.every((text) => /^select /i.test(text)),
    statements.join('\n'),
  ).toBe(true);
}

describe('migrateStore', () => {
  it('applies the pending migrations in name order and returns their names, then none', async () => {
    const db = memoryDatabase();
    expect(await migrateStore(db, 'sqlite', [createTable('0001_a'), createTable('0002_b')])).toEqual([
      '0001_a',
      '0002_b',
    ]);
    expect(
      await migrateStore(db, 'sqlite', [createTable('0001_a'), createTable('0002_b'), createTable('0003_c')]),
    ).toEqual(['0003_c']);
    expect(await tableNames(db)).toEqual(['table_0001_a', 'table_0002_b', 'table_0003_c']);
  });

  it('rejects with the error of the failing migration and rolls back every migration of the run', async () => {
    const db = memoryDatabase();
    const broken: StoreMigration = {
      name: '0002_broken',
      up: async () => Promise.reject(new Error('the migration broke')),
    };
    await expect(migrateStore(db, 'sqlite', [createTable('0001_a'), broken])).rejects.toThrow('the migration broke');
    expect(await tableNames(db)).toEqual([]);
    expect((await sql`select name from actorkit_migrations`.execute(db)).rows).toEqual([]);
  });

  it("checks a store that is up to date with reads only, without Kysely's Migrator (its schema introspection reads every table's columns, twice)", async () => {
    const { db, statements } = statementRecordingDatabase();
    const migrations = [createTable('0001_a'), createTable('0002_b')];
    await migrateStore(db, 'sqlite', migrations);
    statements.length = 0;
    expect(await migrateStore(db, 'sqlite', migrations)).toEqual([]);
    expectSelectsOnly(statements);
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(4);
  });

  it('reads only, too, when migrations were applied in the same millisecond, and leaves the Migrator to refuse a record out of order', async () => {
    const { db, statements } = statementRecordingDatabase();
    const migrations = [createTable('0001_a'), createTable('0002_b'), createTable('0010_c')];
    await migrateStore(db, 'sqlite', migrations);
    await sql`update actorkit_migrations set timestamp = '2026-01-01T00:00:00.000Z'`.execute(db);
    statements.length = 0;
    expect(await migrateStore(db, 'sqlite', migrations)).toEqual([]);
    expectSelectsOnly(statements);
    await sql`update actorkit_migrations set timestamp = '2025-01-01T00:00:00.000Z' where name = '0010_c'`.execute(db);
    await expect(migrateStore(db, 'sqlite', migrations)).rejects.toThrow('corrupted migrations');
  });

  it('refuses a migration named before one already applied', async () => {
    const db = memoryDatabase();
    await migrateStore(db, 'sqlite', [createTable('0002_b')]);
    await expect(migrateStore(db, 'sqlite', [createTable('0001_a'), createTable('0002_b')])).rejects.toThrow(
      'corrupted migrations',
    );
  });
});
