import { CliError } from '../cli/library.js';
import { parseDatabaseUrl, redactDatabaseUrl } from '../src/index.js';

/** Where the local platform keeps one actor's data: a schema of the shared PostgreSQL, or an SQLite file under the state folder. */
export type ActorDatabase =
  | { readonly engine: 'postgres'; readonly schema: string; readonly url: string }
  | { readonly engine: 'sqlite' };

/** The PostgreSQL schema of an actor instance: `actorkit_` and its ref, `-` as `_`. */
function actorSchemaName(ref: string): string {
  return `actorkit_${ref.replaceAll('-', '_')}`;
}

/**
 * The database of an actor instance on the local platform. On PostgreSQL each actor gets its own
 * schema (its tables, its migrations, its migration lock), the URL's `search_path` set to it,
 * so all replicas of one actor share it and two actors never share a table. Without a URL it
 * is SQLite, one file per actor, and more than one replica is refused (`replicas_need_postgres`).
 * A URL that is neither is refused with the store's own message.
 * @param databaseUrl `--database-url` or the platform's `DATABASE_URL` (may be undefined)
 * @param ref the actor's instance ref
 * @param replicas how many replicas it runs
 */
export function actorDatabase(databaseUrl: string | undefined, ref: string, replicas: number): ActorDatabase {
  let target: ReturnType<typeof parseDatabaseUrl>;
  try {
    target = parseDatabaseUrl(databaseUrl, '.');
  } catch (error) {
    throw new CliError(
      'refused',
      'invalid_database_url',
      error instanceof Error ? error.message.replace('DATABASE_URL', '--database-url') : String(error),
    );
  }
  if (target.engine !== 'postgres') {
    if (replicas > 1) {
      throw new CliError(
        'refused',
        'replicas_need_postgres',
        `${ref}: ${replicas} replicas need one PostgreSQL they share: pass --database-url postgres://… (or set DATABASE_URL); SQLite is one file per process`,
      );
    }
    if (databaseUrl !== undefined && databaseUrl.trim() !== '') {
      throw new CliError(
        'refused',
        'invalid_database_url',
        `--database-url ${redactDatabaseUrl(databaseUrl)}: the platform keeps SQLite files itself; pass a postgres:// URL or none`,
      );
    }
    return { engine: 'sqlite' };
  }
  const schema = actorSchemaName(ref);
  const url = new URL(target.url);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { engine: 'postgres', schema, url: url.href };
}

/**
 * Creates the actor's schema when it is missing (the actor migrates its tables into it).
 * An unreachable server is a `failed` error naming it without its password.
 * @param database the actor's database, from {@link actorDatabase}
 */
export async function ensureActorSchema(database: ActorDatabase): Promise<void> {
  if (database.engine !== 'postgres') return;
  const { default: pg } = await import('pg');
  const url = new URL(database.url);
  url.searchParams.delete('options');
  const client = new pg.Client({ connectionString: url.href, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query(`create schema if not exists "${database.schema}"`);
  } catch (error) {
    throw new CliError(
      'failed',
      'database_unreachable',
      `PostgreSQL at ${redactDatabaseUrl(url.href)}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
