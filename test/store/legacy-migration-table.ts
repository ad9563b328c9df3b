import { expect } from 'vitest';
import type { Kysely } from 'kysely';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreDatabase } from '../../src/store/store-database.js';
import { STORE_MIGRATIONS } from '../../src/store/store-migrations.js';
import { invocation } from '../../src/testing/test-invocation.js';

/**
 * The migration record of the store's former migration loop, as that loop created and filled
 * it (`actorkit_migrations (name, applied_at)`), for a database it had fully migrated.
 */
export const LEGACY_MIGRATION_TABLE_SQL = [
  'create table if not exists "actorkit_migrations" ("name" text primary key, "applied_at" text not null)',
  `insert into "actorkit_migrations" ("name", "applied_at") values ('0001_initial', '2025-06-01T10:00:00.000Z'), ('0002_oauth_states', '2025-06-01T10:00:00.001Z')`,
];

/** The migrations the former loop knew; the ones after them came with Kysely's `Migrator`. */
const LEGACY_MIGRATIONS = STORE_MIGRATIONS.filter((migration) => migration.name <= '0002_oauth_states');

/** Builds on `db` what the former loop left behind: every table of every migration it knew, and its own record of them. */
export async function createLegacyDatabase(
  db: Kysely<StoreDatabase>,
  run: (statement: string) => Promise<unknown>,
): Promise<void> {
  for (const migration of LEGACY_MIGRATIONS) await migration.up(db);
  for (const statement of LEGACY_MIGRATION_TABLE_SQL) await run(statement);
}

/**
 * Opens a database the former loop created with today's store, and checks that it migrates
 * without running any migration again (only the later ones, once), keeps the record's dates
 * and the data, and works.
 */
export async function expectLegacyDatabaseOpens(
  url: string | undefined,
  dataDir: string | undefined,
  rows: (statement: string) => Promise<Record<string, unknown>[]>,
): Promise<void> {
  const createdAt = await rows(`select value from actorkit_meta where key = 'created_at'`);
  const sink = createMemorySink();
  const store = await openStore({
    ...(url === undefined ? {} : { url }),
    ...(dataDir === undefined ? {} : { dataDir }),
    logger: createLogger({ sink }),
  });
  try {
    await store.migrate();
    await store.migrate();
    const later = STORE_MIGRATIONS.filter((migration) => !LEGACY_MIGRATIONS.includes(migration)).map(
      (migration) => migration.name,
    );
    expect(sink.records.filter((record) => record.event === 'store_migrated').map((record) => record.applied)).toEqual([
      later,
    ]);
    expect((await rows('select name, timestamp from actorkit_migrations order by name')).slice(0, 2)).toEqual([
      { name: '0001_initial', timestamp: '2025-06-01T10:00:00.000Z' },
      { name: '0002_oauth_states', timestamp: '2025-06-01T10:00:00.001Z' },
    ]);
    expect((await rows('select name from actorkit_migrations order by name')).map((row) => row.name)).toEqual(
      STORE_MIGRATIONS.map((migration) => migration.name),
    );
    expect(await rows(`select value from actorkit_meta where key = 'created_at'`)).toEqual(createdAt);
    await store.saveTurns([invocation()]);
    expect((await store.readStats()).invocations).toBe(1);
  } finally {
    await store.close();
  }
}
