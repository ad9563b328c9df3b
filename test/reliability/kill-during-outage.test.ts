import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForLogEvent, within } from '../contract/spawn-actor.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { invokeTurn, OutageActorProcesses } from './support/outage-actor-processes.js';

// `kill -9` while PostgreSQL is away: every invoke answered during the outage (stats_deferred)
// had its count journaled to DATA_DIR and synced before its answer, so after a restart with the
// database back, /stats counts each of them exactly once and the journal is gone.

const INVOKES = 50;
const SPREAD = { users: 5, sessions: 9 };

const baseUrl = postgresTestUrl('kill -9 during a database outage');
if (baseUrl !== undefined) {
  describe('kill -9 during a database outage (real process, PostgreSQL behind a proxy)', () => {
    const processes = new OutageActorProcesses(baseUrl);
    const dataDir = mkdtempSync(join(tmpdir(), 'actorkit-journal-'));
    afterAll(async () => {
      await processes.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('loses no answered count: journaled before each answer, merged once at the next start', async () => {
      const actor = await processes.spawn({ DATA_DIR: dataDir });
      // One count before the outage, so "exactly once" is checked against the database's own too.
      expect(await invokeTurn(actor, 0, SPREAD)).toMatchObject({ status: 200 });

      processes.proxy.cut();
      const answers = await Promise.all(Array.from({ length: INVOKES }, (_, turn) => invokeTurn(actor, turn, SPREAD)));
      expect(answers.map(({ status }) => status)).toEqual(answers.map(() => 200));
      expect(answers.filter(({ metadata }) => metadata?.stats_deferred === true)).toHaveLength(INVOKES);
      expect(readdirSync(dataDir).filter((name) => name.endsWith('.jsonl'))).toHaveLength(1);

      actor.child.kill('SIGKILL');
      expect(await within(actor.exited, 10_000, 'exit after SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

      processes.proxy.restore();
      const restarted = await processes.spawn();
      expect(await waitForLogEvent(restarted, 'stats_spill_merged')).toMatchObject({ records: INVOKES, files: 1 });
      const stats = (await (await fetch(`${restarted.baseUrl}/stats`)).json()) as Record<string, unknown>;
      expect(stats).toMatchObject({ invocations: INVOKES + 1, errors: 0, users: SPREAD.users });
      expect(readdirSync(dataDir).filter((name) => name.startsWith('pending-invocations-'))).toEqual([]);

      // A second restart finds nothing more to merge: each count was taken once.
      restarted.child.kill('SIGTERM');
      await within(restarted.exited, 20_000, 'exit after SIGTERM');
      const again = await processes.spawn();
      expect(again.logs.find((record) => record.event === 'stats_spill_merged')).toBeUndefined();
      expect(await (await fetch(`${again.baseUrl}/stats`)).json()).toMatchObject({ invocations: INVOKES + 1 });
    }, 90_000);
  });
}
