import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRuntime, RUNTIMES_UNDER_TEST } from '../contract/runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitForLogEvent, waitUntilReady, within } from '../contract/spawn-actor.js';
import { proxyDatabase, TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import type { TcpProxy } from '../support/tcp-proxy.js';

// `kill -9` while PostgreSQL is away: every invoke answered during the outage (stats_deferred)
// had its count journaled to DATA_DIR and synced before its answer, so after a restart with the
// database back, /stats counts each of them exactly once and the journal is gone.

const INVOKES = 50;
const runtime = RUNTIMES_UNDER_TEST.find((candidate) => candidate.name === 'node-system')!;

/** POSTs one invoke to the actor. */
function invoke(actor: SpawnedActor, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${actor.baseUrl}/agent/invoke`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

const baseUrl = postgresTestUrl('kill -9 during a database outage');
if (baseUrl !== undefined) {
  describe('kill -9 during a database outage (real process, PostgreSQL behind a proxy)', () => {
    const schemas = new TestSchemas(baseUrl);
    const actors: SpawnedActor[] = [];
    const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-journal-'));
    let proxy: TcpProxy | undefined;
    afterAll(async () => {
      for (const actor of actors) await actor.dispose();
      await proxy?.close();
      await schemas.dropAll();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('loses no answered count: journaled before each answer, merged once at the next start', async () => {
      checkRuntime(runtime);
      const proxied = await proxyDatabase(await schemas.create());
      proxy = proxied.proxy;
      const env = { DATABASE_URL: proxied.url, DATA_DIR: dataDir, DATABASE_TIMEOUT_MS: '1000' };
      const actor = await spawnActor(runtime, env);
      actors.push(actor);
      await waitUntilReady(actor);
      // One count before the outage, so "exactly once" is checked against the database's own too.
      expect((await invoke(actor, { user_identifier: 'u-0', session_id: 's-0', message: 'before' })).status).toBe(200);

      proxy.cut();
      const answers = await Promise.all(
        Array.from({ length: INVOKES }, async (_, turn) => {
          const response = await invoke(actor, {
            user_identifier: `u-${turn % 5}`,
            session_id: `s-${turn % 9}`,
            message: `turn ${turn}`,
          });
          return { status: response.status, body: (await response.json()) as { metadata?: Record<string, unknown> } };
        }),
      );
      expect(answers.map(({ status }) => status)).toEqual(answers.map(() => 200));
      expect(answers.filter(({ body }) => body.metadata?.stats_deferred === true)).toHaveLength(INVOKES);
      expect(readdirSync(dataDir).filter((name) => name.endsWith('.jsonl'))).toHaveLength(1);

      actor.child.kill('SIGKILL');
      expect(await within(actor.exited, 10_000, 'exit after SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

      proxy.restore();
      const restarted = await spawnActor(runtime, env);
      actors.push(restarted);
      await waitUntilReady(restarted);
      expect(await waitForLogEvent(restarted, 'stats_spill_merged')).toMatchObject({ records: INVOKES, files: 1 });
      const stats = (await (await fetch(`${restarted.baseUrl}/stats`)).json()) as Record<string, unknown>;
      expect(stats).toMatchObject({ invocations: INVOKES + 1, errors: 0, users: 5 });
      expect(readdirSync(dataDir).filter((name) => name.startsWith('pending-invocations-'))).toEqual([]);

      // A second restart finds nothing more to merge: each count was taken once.
      restarted.child.kill('SIGTERM');
      await within(restarted.exited, 20_000, 'exit after SIGTERM');
      const again = await spawnActor(runtime, env);
      actors.push(again);
      await waitUntilReady(again);
      expect(again.logs.find((record) => record.event === 'stats_spill_merged')).toBeUndefined();
      expect(await (await fetch(`${again.baseUrl}/stats`)).json()).toMatchObject({ invocations: INVOKES + 1 });
    }, 90_000);
  });
}
