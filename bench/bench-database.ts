import pg from 'pg';

/** The PostgreSQL database the bench creates afresh on every run (and leaves for inspection). */
export const BENCH_DATABASE = 'actorkit_bench';

/**
 * Drops and re-creates the bench database on the server `adminUrl` points at and returns
 * the `DATABASE_URL` of the new database, or null (with the reason) when PostgreSQL cannot
 * be reached, so the PostgreSQL cells are reported as skipped instead of failing the run.
 * @param adminUrl any database on the server, e.g. `postgres://postgres@127.0.0.1:5432/test`
 */
export async function recreateBenchDatabase(adminUrl: string): Promise<{ url: string } | { url: null; reason: string }> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${BENCH_DATABASE} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${BENCH_DATABASE}`);
  } catch (error) {
    return { url: null, reason: (error as Error).message };
  } finally {
    await client.end().catch(() => {});
  }
  const url = new URL(adminUrl);
  url.pathname = `/${BENCH_DATABASE}`;
  return { url: url.href };
}
