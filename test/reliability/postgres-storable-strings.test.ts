import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, createMemorySink, silentLogger } from '../../src/log/logger.js';
import { GroupCommit } from '../../src/store/group-commit.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { invocation } from '../../src/testing/test-invocation.js';
import { type ReliabilityActor, startReliabilityActor } from './support/reliability-actor.js';

// Issue #16 item 1: a value PostgreSQL cannot store (a NUL character, a lone surrogate) in any
// string of the chat request or the headers that reach the store is a 422 naming the field,
// and a record the database refuses anyway is set aside so the records behind it flow.

const baseUrl = postgresTestUrl('strings PostgreSQL cannot store');

const valid = { user_identifier: 'u-1', session_id: 's-1', message: 'hi' };

/** Every string of a chat request, each carrying `bad`, with the pointer the 422 must name. */
function poisonedRequests(
  bad: string,
): { readonly pointer: string; readonly body: Record<string, unknown>; readonly headers?: Record<string, string> }[] {
  const attachment = { name: 'a.png', mime_type: 'image/png', data: 'aGk=' };
  return [
    { pointer: '/user_identifier', body: { ...valid, user_identifier: `a${bad}b` } },
    { pointer: '/session_id', body: { ...valid, session_id: `s${bad}1` } },
    { pointer: '/message', body: { ...valid, message: `hi${bad}` } },
    { pointer: '/metadata/tenant_id', body: { ...valid, metadata: { tenant_id: `t${bad}` } } },
    { pointer: '/metadata/note', body: { ...valid, metadata: { note: `n${bad}` } } },
    { pointer: '/metadata/deep/0/x', body: { ...valid, metadata: { deep: [{ x: `n${bad}` }] } } },
    { pointer: '/metadata', body: { ...valid, metadata: { [`k${bad}`]: 1 } } },
    { pointer: '/attachments/0/name', body: { ...valid, attachments: [{ ...attachment, name: `a${bad}.png` }] } },
    {
      pointer: '/attachments/0/mime_type',
      body: { ...valid, attachments: [{ ...attachment, mime_type: `image/p${bad}ng` }] },
    },
    {
      pointer: '/attachments/0/url',
      body: { ...valid, attachments: [{ name: 'a', mime_type: 'image/png', url: `https://example.com/a${bad}` }] },
    },
  ];
}

async function post(actor: ReliabilityActor, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return actor.app.request('/agent/invoke', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

if (baseUrl !== undefined) {
  describe('strings PostgreSQL cannot store, through POST /agent/invoke on PostgreSQL', () => {
    const schemas = new TestSchemas(baseUrl);
    let actor: ReliabilityActor;
    beforeAll(async () => {
      actor = await startReliabilityActor({ DATABASE_URL: await schemas.create() });
    });
    afterAll(async () => {
      await actor.app.actor.shutdown();
      await schemas.dropAll();
    });

    for (const [name, bad] of [
      ['a NUL character', '\u0000'],
      ['a lone high surrogate', '\ud800'],
      ['a lone low surrogate', '\udc00'],
    ] as const) {
      it(`refuses ${name} in every string of the request with a 422 naming the field`, async () => {
        for (const { pointer, body } of poisonedRequests(bad)) {
          const response = await post(actor, body);
          expect(response.status, pointer).toBe(422);
          const problem = (await response.json()) as { code: string; errors: { pointer: string }[] };
          expect(problem.code).toBe('validation_failed');
          expect(
            problem.errors.map((error) => error.pointer),
            JSON.stringify(body),
          ).toContain(pointer);
        }
      });
    }

    it('refuses header values that would reach the store unless they are plain ASCII ids', async () => {
      for (const [header, value] of [
        ['X-Tenant-Id', 't\u00e9'],
        ['Idempotency-Key', 'k\u00e9'],
        ['Idempotency-Key', 'k y'],
      ] as const) {
        const response = await post(actor, valid, { [header]: value });
        expect(response.status, `${header}: ${value}`).toBe(400);
        expect(((await response.json()) as { code: string }).code).toBe('invalid_header');
      }
    });

    it('keeps counting after the refusals: every later invoke is stored at once and counted exactly', async () => {
      const before = ((await (await actor.app.request('/stats')).json()) as { invocations: number }).invocations;
      for (let index = 0; index < 5; index += 1) {
        const response = await post(actor, {
          ...valid,
          user_identifier: `after-${index}`,
          message: 'caf\u00e9 \u{1F600}',
        });
        expect(response.status).toBe(200);
      }
      // Before the fix, one poisoned record kept every later one waiting for good; a write that
      // outlived the store's time-out under load would wait too, but only until this flush.
      await actor.app.actor.context.turns.flush();
      expect(actor.app.actor.context.stats.pending).toBe(0);
      const stats = (await (await actor.app.request('/stats')).json()) as { invocations: number };
      expect(stats.invocations).toBe(before + 5);
      const health = (await (await actor.app.request('/health')).json()) as {
        checks: { database: { status: string } };
      };
      expect(health.checks.database.status).toBe('pass');
      expect(await (await actor.app.request('/metrics')).text()).toMatch(
        /^actor_invocation_records_set_aside_total 0$/m,
      );
    });
  });

  describe('GroupCommit on PostgreSQL: a record the database refuses is set aside', () => {
    const schemas = new TestSchemas(baseUrl);
    const closing: Store[] = [];
    afterAll(async () => {
      await Promise.all(closing.map((store) => store.close()));
      await schemas.dropAll();
    });

    it('sets aside a record with a NUL in its user identifier, counts and logs it once, and writes the rest', async () => {
      const store = await openStore({ url: await schemas.create(), logger: silentLogger });
      closing.push(store);
      await store.migrate();
      const sink = createMemorySink();
      let setAside = 0;
      const buffer = new GroupCommit(store, {
        logger: createLogger({ sink }),
        retryIntervalMs: 20,
        onSetAside: () => (setAside += 1),
      });
      const outcomes = await Promise.all(
        ['u-1', 'a\u0000b', 'u-2'].map((userIdentifier) => buffer.saveTurn(invocation({ userIdentifier }))),
      );
      expect(outcomes.map((outcome) => outcome.persisted)).toEqual([true, false, true]);
      expect(buffer.pending).toBe(0);
      expect(setAside).toBe(1);
      expect(buffer.setAside).toBe(1);
      expect(sink.records.filter((record) => record.event === 'invocation_record_set_aside')).toHaveLength(1);
      expect(sink.records.filter((record) => record.event === 'invocation_store_unavailable')).toHaveLength(0);
      for (let index = 0; index < 3; index += 1) expect((await buffer.saveTurn(invocation())).persisted).toBe(true);
      expect((await store.readStats()).invocations).toBe(5);
      await buffer.flush();
    });

    it('sets aside a refused record found among those waiting from an outage, and writes the others', async () => {
      const store = await openStore({ url: await schemas.create(), logger: silentLogger });
      closing.push(store);
      await store.migrate();
      let failing = true;
      const flaky: Store = Object.assign(Object.create(store) as Store, {
        saveTurns: (records: Parameters<Store['saveTurns']>[0]) =>
          failing ? Promise.reject(new Error('connection refused')) : store.saveTurns(records),
      });
      const sink = createMemorySink();
      const buffer = new GroupCommit(flaky, { logger: createLogger({ sink }), retryIntervalMs: 20 });
      for (const userIdentifier of ['u-1', 'a\u0000b', 'u-2'])
        expect((await buffer.saveTurn(invocation({ userIdentifier }))).persisted).toBe(false);
      expect(buffer.pending).toBe(3);
      failing = false;
      await buffer.flush();
      expect(buffer.pending).toBe(0);
      expect(buffer.setAside).toBe(1);
      expect((await store.readStats()).invocations).toBe(2);
      expect(sink.records.filter((record) => record.event === 'invocation_record_set_aside')).toHaveLength(1);
    });
  });
}
