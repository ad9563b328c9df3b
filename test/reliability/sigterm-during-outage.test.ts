import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForLogEvent, within } from '../contract/spawn-actor.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { invokeTurn, OutageActorProcesses } from './support/outage-actor-processes.js';

// SIGTERM while PostgreSQL is away: the invokes answered during the outage (stats_deferred)
// cannot be flushed, so they are spilled to a file under DATA_DIR and merged at the next
// start: after a restart with the database back, /stats counts every answered invoke.

const INVOKES = 120;
const SPREAD = { users: 5, sessions: 9 };

const baseUrl = postgresTestUrl('SIGTERM during a database outage');
if (baseUrl !== undefined) {
  describe('SIGTERM during a database outage (real process, PostgreSQL behind a proxy)', () => {
    const processes = new OutageActorProcesses(baseUrl);
    const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-spill-'));
    afterAll(async () => {
      await processes.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('keeps every deferred count across the restart: spilled under DATA_DIR, merged at the next start', async () => {
      const actor = await processes.spawn({ DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: '3000' });

      processes.proxy.cut();
      let deferred = 0;
      for (let turn = 0; turn < INVOKES; turn += 1) {
        const { status, metadata } = await invokeTurn(actor, turn, SPREAD);
        expect(status).toBe(200);
        if (metadata?.stats_deferred === true) deferred += 1;
      }
      expect(deferred).toBe(INVOKES);

      actor.child.kill('SIGTERM');
      expect(await within(actor.exited, 20_000, 'exit after SIGTERM')).toEqual({ code: 0, signal: null });
      expect(
        actor.logs.find((record) => record.event === 'stats_flush_failed'),
        actor.output(),
      ).toBeUndefined();
      expect(actor.logs.find((record) => record.event === 'stats_spilled')).toMatchObject({ pending: INVOKES });
      // The spill holds every count; the journal it replaced is gone.
      expect(readdirSync(dataDir).filter((name) => name.startsWith('pending-invocations-'))).toEqual([
        expect.stringMatching(/\.json$/),
      ]);

      processes.proxy.restore();
      const restarted = await processes.spawn();
      expect(await waitForLogEvent(restarted, 'stats_spill_merged')).toMatchObject({ records: INVOKES });
      const stats = (await (await fetch(`${restarted.baseUrl}/stats`)).json()) as Record<string, unknown>;
      expect(stats).toMatchObject({ invocations: INVOKES, errors: 0, users: 5 });
      expect(readdirSync(dataDir).filter((name) => name.endsWith('.json'))).toEqual([]);
    }, 90_000);
  });
}
