import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';

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
