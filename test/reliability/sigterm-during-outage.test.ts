import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRuntime, RUNTIMES_UNDER_TEST } from '../contract/runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitForLogEvent, waitUntilReady, within } from '../contract/spawn-actor.js';
import { proxyDatabase, TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import type { TcpProxy } from '../support/tcp-proxy.js';

// SIGTERM while PostgreSQL is away: the invokes answered during the outage (stats_deferred)
// cannot be flushed, so they are spilled to a file under DATA_DIR and merged at the next
// start: after a restart with the database back, /stats counts every answered invoke.

const INVOKES = 120;
const runtime = RUNTIMES_UNDER_TEST.find((candidate) => candidate.name === 'node-system')!;

const baseUrl = postgresTestUrl('SIGTERM during a database outage');
if (baseUrl !== undefined) {
  describe('SIGTERM during a database outage (real process, PostgreSQL behind a proxy)', () => {
    const schemas = new TestSchemas(baseUrl);
    const actors: SpawnedActor[] = [];
    const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-spill-'));
    let proxy: TcpProxy | undefined;
    afterAll(async () => {
      for (const actor of actors) await actor.dispose();
      await proxy?.close();
      await schemas.dropAll();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('keeps every deferred count across the restart: spilled under DATA_DIR, merged at the next start', async () => {
      checkRuntime(runtime);
      const proxied = await proxyDatabase(await schemas.create());
      proxy = proxied.proxy;
      const env = {
        DATABASE_URL: proxied.url,
        DATA_DIR: dataDir,
        DATABASE_TIMEOUT_MS: '1000',
        SHUTDOWN_GRACE_MS: '3000',
      };
      const actor = await spawnActor(runtime, env);
      actors.push(actor);
      await waitUntilReady(actor);

      proxy.cut();
      let deferred = 0;
      for (let turn = 0; turn < INVOKES; turn += 1) {
        const response = await fetch(`${actor.baseUrl}/agent/invoke`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            user_identifier: `u-${turn % 5}`,
            session_id: `s-${turn % 9}`,
            message: `turn ${turn}`,
          }),
          signal: AbortSignal.timeout(10_000),
        });
        expect(response.status).toBe(200);
        const body = (await response.json()) as { metadata?: Record<string, unknown> };
        if (body.metadata?.stats_deferred === true) deferred += 1;
      }
      expect(deferred).toBe(INVOKES);

      actor.child.kill('SIGTERM');
      expect(await within(actor.exited, 20_000, 'exit after SIGTERM')).toEqual({ code: 0, signal: null });
      expect(
        actor.logs.find((record) => record.event === 'stats_flush_failed'),
        actor.output(),
      ).toBeUndefined();
      expect(actor.logs.find((record) => record.event === 'stats_spilled')).toMatchObject({ pending: INVOKES });
      expect(readdirSync(dataDir).filter((name) => name.endsWith('.json'))).toHaveLength(1);

      proxy.restore();
      const restarted = await spawnActor(runtime, env);
      actors.push(restarted);
      await waitUntilReady(restarted);
      expect(await waitForLogEvent(restarted, 'stats_spill_merged')).toMatchObject({ records: INVOKES });
      const stats = (await (await fetch(`${restarted.baseUrl}/stats`)).json()) as Record<string, unknown>;
      expect(stats).toMatchObject({ invocations: INVOKES, errors: 0, users: 5 });
      expect(readdirSync(dataDir).filter((name) => name.endsWith('.json'))).toEqual([]);
    }, 90_000);
  });
}
