import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { deadlinePool } from '../../src/store/postgres-dialect.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { postgresTestUrl } from './postgres-test-database.js';

const baseUrl = postgresTestUrl('deadline pool');
if (baseUrl !== undefined) {
  describe('deadlinePool on a database that goes silent', () => {
    let proxy: TcpProxy | undefined;
    let pool: pg.Pool | undefined;
    afterAll(async () => {
      await proxy?.close();
      await pool?.end().catch(() => {});
    });

    it('a query without an answer fails at its deadline and its connection is discarded, never handed out again', async () => {
      const target = new URL(baseUrl);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      const proxied = new URL(baseUrl);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      pool = new pg.Pool({ connectionString: proxied.href, max: 1, connectionTimeoutMillis: 2_000 });
      const bounded = deadlinePool(pool, 300);
      const first = await bounded.connect();
      await first.query('select 1', []);
      first.release();

      proxy.pause();
      const stuck = await bounded.connect();
      await expect(stuck.query('select 2', [])).rejects.toThrow(/timeout/i);
      stuck.release();
      // That connection stays silent for good; a pool that kept it would hand it out again.
      proxy.abandon();
      proxy.resume();
      const fresh = await bounded.connect();
      await expect(fresh.query('select 3 as three', [])).resolves.toMatchObject({ rows: [{ three: 3 }] });
      fresh.release();
      expect(pool.totalCount).toBe(1);
    });
  });
}
