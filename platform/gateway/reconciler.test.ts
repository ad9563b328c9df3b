import { describe, expect, it } from 'vitest';
import type { PlatformConfig } from '../../src/sdk/index.js';
import type { ActorPool, ReplicaView } from '../actor-pool.js';
import { AnsweredInvokes } from './answered-invokes.js';
import { Reconciler } from './reconciler.js';

/** A pool whose replicas answer `/stats` with the counters in `totals` (undefined: the replica is down). */
function fakePool(
  totals: (number | undefined)[],
  restarts: number[] = totals.map(() => 0),
): ActorPool & { totals: (number | undefined)[]; restarts: number[] } {
  const pool = {
    ref: 'r1',
    slug: 'fake',
    dir: '/nowhere',
    config: {} as PlatformConfig,
    meshGroup: undefined,
    totals,
    restarts,
    replicas: (): ReplicaView[] =>
      pool.totals.map((_, index) => ({
        index,
        url: 'http://127.0.0.1:1',
        state: 'ready',
        pid: 1,
        restarts: pool.restarts[index] ?? 0,
        startedAt: 'then',
        lastLines: [],
      })),
    forward: (request: Request) => pool.forwardTo(0, request),
    async forwardTo(index: number, _request: Request) {
      const total = pool.totals[index];
      if (total === undefined) throw new TypeError('fetch failed');
      return Response.json({ instance_id: `r1-${index}`, invocations: total + 1, errors: 1 });
    },
  };
  return pool;
}

const kinds = (report: Awaited<ReturnType<Reconciler['read']>>) => report.actors[0]?.drift.map((drift) => drift.kind);

describe('reconciliation', () => {
  it("counts from the starting point: the turns before it are not the gateway's", async () => {
    const pool = fakePool([10, 10]);
    const answered = new AnsweredInvokes();
    const reconciler = new Reconciler(new Map([['r1', pool]]), answered, 0);
    await reconciler.ensureBaseline(pool, 'owner');
    answered.add('r1', 'owner', 2);
    pool.totals = [12, 12];
    const report = await reconciler.read();
    expect(report.actors[0]).toMatchObject({ answered: 2, counted: 2, baseline: 10, drift: [] });
    expect(report.drift).toBe(false);
  });

  it('shows a lost count, a restart and replicas that disagree as drift', async () => {
    const pool = fakePool([0, 0]);
    const answered = new AnsweredInvokes();
    const reconciler = new Reconciler(new Map([['r1', pool]]), answered, 0);
    await reconciler.read();
    answered.add('r1', 'owner', 3);
    pool.totals = [2, 3];
    pool.restarts = [0, 1];
    const report = await reconciler.read();
    expect(kinds(report)).toEqual(['replica_restarted', 'replicas_disagree', 'count_mismatch']);
    expect(report.actors[0]?.counted).toBe(2);
    expect(report.drift).toBe(true);
    expect(report.events.map((event) => event.kind)).toContain('count_mismatch');
  });

  it('shows a replica restarted before the first read as drift of that read, and only of that one', async () => {
    const pool = fakePool([0, 0], [0, 1]);
    const reconciler = new Reconciler(new Map([['r1', pool]]), new AnsweredInvokes(), 0);
    const first = await reconciler.read();
    expect(first.actors[0]?.drift).toEqual([expect.objectContaining({ kind: 'replica_restarted', replica: 1 })]);
    expect(first.actors[0]?.replicas.map((replica) => replica.restarts_since_last_read)).toEqual([0, 1]);
    expect(kinds(await reconciler.read())).toEqual([]);
    expect((await reconciler.read()).events.map((event) => event.kind)).toEqual(['replica_restarted']);
  });

  it('does not call a read that may count turns under way a mismatch', async () => {
    const pool = fakePool([0]);
    const answered = new AnsweredInvokes();
    const reconciler = new Reconciler(new Map([['r1', pool]]), answered, 0);
    await reconciler.read();
    answered.begin('r1');
    pool.totals = [1];
    expect((await reconciler.read()).actors[0]).toMatchObject({ answered: 0, counted: 1, in_flight: 1, drift: [] });
  });

  it('says so when no replica answers, and when the starting point had to be inferred', async () => {
    const pool = fakePool([undefined]);
    const answered = new AnsweredInvokes();
    const reconciler = new Reconciler(new Map([['r1', pool]]), answered, 0);
    answered.add('r1', 'owner', 1);
    expect(kinds(await reconciler.read())).toEqual(['stats_unreadable']);
    pool.totals = [5];
    expect(kinds(await reconciler.read())).toEqual(['baseline_estimated']);
    expect(kinds(await reconciler.read())).toEqual([]);
  });

  it('refuses a negative interval at once', () => {
    expect(() => new Reconciler(new Map(), new AnsweredInvokes(), -1)).toThrow(/interval/);
  });
});
