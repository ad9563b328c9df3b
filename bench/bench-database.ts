import pg from 'pg';

/** The PostgreSQL database the bench creates afresh on every run (and leaves for inspection). */
export const BENCH_DATABASE = 'actorkit_bench';

/**
 * Drops and re-creates the bench database on the server `adminUrl` points at and returns
 * the `DATABASE_URL` of the new database, or null (with the reason) when PostgreSQL cannot
 * be reached, so the PostgreSQL cells are reported as skipped instead of failing the run.
 * @param adminUrl any database on the server, e.g. `postgres://postgres@127.0.0.1:5432/test`
 * @param name the database to re-create (an SQL identifier of the bench's own choosing)
 */
export async function recreateBenchDatabase(
  adminUrl: string,
  name: string = BENCH_DATABASE,
): Promise<{ url: string } | { url: null; reason: string }> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  } catch (error) {
    return { url: null, reason: (error as Error).message };
  } finally {
    await client.end().catch(() => {});
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.href };
}
