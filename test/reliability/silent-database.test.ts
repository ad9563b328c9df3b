import { afterAll, describe, expect, it, vi } from 'vitest';
import { TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { type ProxiedPostgresActor, serveBehindProxy } from './support/proxied-postgres-actor.js';

// A PostgreSQL that goes silent (a network partition: a paused proxy, connections open, no
// byte through) must not leave requests unanswered: every store call has a deadline
// (DATABASE_TIMEOUT_MS), a request that needs the store gets 503 `store_unavailable`, an invoke
// answers without it (history not loaded, stats deferred), /health turns degraded, and once
// the database answers again — on new connections only; the old ones stay silent — the pool
// works without a restart and the counts are exact.

/** The deadline the actor is given, and the ceiling every answer must arrive within (no hang). */
const DEADLINE_MS = 1_000;
const ANSWER_CEILING_MS = 10_000;
const INVOKES_DURING = 15;

const invoke = (baseUrl: string, turn: string, idempotencyKey?: string) =>
  fetch(`${baseUrl}/agent/invoke`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
    },
    body: JSON.stringify({ user_identifier: 'u', session_id: `s-${turn}`, message: turn }),
    signal: AbortSignal.timeout(ANSWER_CEILING_MS),
  });

const json = async (response: Response) => ({
  status: response.status,
  body: (await response.json()) as Record<string, unknown>,
});
/** The reply's metadata flags (`metadata` is left out when there are none). */
const flags = async (response: Response) => {
  const { status, body } = await json(response);
  return { status, metadata: (body.metadata ?? {}) as Record<string, unknown> };
};

const baseUrl = postgresTestUrl('silent database');
if (baseUrl !== undefined) {
  describe('a PostgreSQL that goes silent behind a paused proxy', () => {
    const schemas = new TestSchemas(baseUrl);
    let served: ProxiedPostgresActor | undefined;
    afterAll(async () => {
      await served?.close();
      await schemas.dropAll();
    });

    it('answers every request within the deadline bound (503 store_unavailable where the store is needed), /health degraded; the pool recovers on resume', async () => {
      served = await serveBehindProxy(schemas, { DATABASE_TIMEOUT_MS: String(DEADLINE_MS) });
      const { actor, proxy } = served;
      const url = actor.server.url;
      expect((await flags(await invoke(url, 'before'))).metadata).toEqual({});
      expect((await json(await fetch(`${url}/stats`))).body).toMatchObject({ invocations: 1 });

      proxy.pause();
      const settings = await json(
        await fetch(`${url}/settings`, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: '{"max_items":7}',
          signal: AbortSignal.timeout(ANSWER_CEILING_MS),
        }),
      );
      expect(settings).toMatchObject({ status: 503, body: { code: 'store_unavailable' } });
      const unseenTenant = await json(
        await fetch(`${url}/stats/never-read`, { signal: AbortSignal.timeout(ANSWER_CEILING_MS) }),
      );
      expect(unseenTenant).toMatchObject({ status: 503, body: { code: 'store_unavailable' } });
      // Every other invoke carries an Idempotency-Key: its claim is a query of its own.
      const during = await Promise.all(
        Array.from({ length: INVOKES_DURING }, (_, index) =>
          invoke(url, `during-${index}`, index % 2 === 0 ? `key-${index}` : undefined).then(flags),
        ),
      );
      for (const [index, answer] of during.entries()) {
        expect(answer.status).toBe(200);
        expect(answer.metadata).toMatchObject({
          history_loaded: false,
          stats_deferred: true,
          ...(index % 2 === 0 ? { idempotency_unavailable: true } : {}),
        });
      }
      const health = await json(await fetch(`${url}/health`));
      expect(health).toMatchObject({
        status: 200,
        body: { status: 'degraded', checks: { database: { status: 'warn' } } },
      });

      // The connections open during the partition stay silent for good: only a pool that
      // discarded them (and does not hand them out again) answers from here on.
      proxy.abandon();
      proxy.resume();
      let answered = 1 + INVOKES_DURING;
      await vi.waitFor(
        async () => {
          const after = await flags(await invoke(url, `after-${Date.now()}`));
          expect(after.status).toBe(200);
          answered += 1;
          expect(after.metadata).toEqual({});
        },
        { timeout: 20_000, interval: 500 },
      );
      await vi.waitFor(() => expect(actor.app.actor.context.stats.pending).toBe(0), { timeout: 10_000 });
      expect((await json(await fetch(`${url}/stats`))).body).toMatchObject({ invocations: answered });
      // More requests at once than the pool has connections: none may meet a connection left stuck.
      const reads = await Promise.all(
        Array.from({ length: 24 }, (_, index) =>
          fetch(`${url}/stats/tenant-${index}`, { signal: AbortSignal.timeout(ANSWER_CEILING_MS) }),
        ),
      );
      expect(reads.map((response) => response.status)).toEqual(reads.map(() => 200));
      expect(
        (
          await json(
            await fetch(`${url}/settings`, {
              method: 'PUT',
              headers: { 'Content-Type': 'application/json' },
              body: '{"max_items":7}',
            }),
          )
        ).status,
      ).toBe(200);
    }, 90_000);
  });
}
