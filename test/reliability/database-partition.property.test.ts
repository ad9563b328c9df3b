import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { type ProxiedPostgresActor, serveBehindProxy } from './support/proxied-postgres-actor.js';
import { assertWellFormedAnswer, observe } from './support/response-invariants.js';

// Fuzz shape: a pausable (and cuttable) TCP proxy in front of PostgreSQL. fast-check draws a
// schedule of link changes (pause, resume, cut, restore) between requests (invokes, with and
// without an Idempotency-Key, bursts of them, PUT /settings, /stats, /health). Every request
// is answered within a ceiling; the only answer that is not 200 is a well-formed 503
// `store_unavailable` problem, never to an invoke; and once the link is back, /stats counts
// exactly the invokes answered 200.

const DEADLINE_MS = 500;
/** No answer may take longer: a handful of deadlines, far from the 150 s a socket waited before. */
const ANSWER_CEILING_MS = 8_000;

type Step =
  | { readonly kind: 'pause' | 'resume' | 'cut' | 'restore' | 'stats' | 'health' }
  | { readonly kind: 'invoke'; readonly count: number; readonly idempotent: boolean }
  | { readonly kind: 'settings'; readonly maxItems: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom<Step>({ kind: 'pause' }, { kind: 'resume' }, { kind: 'cut' }, { kind: 'restore' }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('invoke' as const),
      count: fc.integer({ min: 1, max: 6 }),
      idempotent: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('settings' as const), maxItems: fc.integer({ min: 1, max: 100 }) }),
  },
  { weight: 1, arbitrary: fc.constantFrom<Step>({ kind: 'stats' }, { kind: 'health' }) },
);

const baseUrl = postgresTestUrl('database partition fuzz');
if (baseUrl !== undefined) {
  describe('requests while the link to PostgreSQL pauses, resumes, breaks and returns', () => {
    const schemas = new TestSchemas(baseUrl);
    let served: ProxiedPostgresActor | undefined;
    afterAll(async () => {
      await served?.close();
      await schemas.dropAll();
    });

    it('every request answered in bounded time, 503 store_unavailable the only refusal, exact counts after', async () => {
      served = await serveBehindProxy(schemas, { DATABASE_TIMEOUT_MS: String(DEADLINE_MS) });
      const { actor, proxy: link } = served;
      const url = actor.server.url;
      let answeredInvokes = 0;
      let keys = 0;

      const send = async (method: string, path: string, init: RequestInit = {}) => {
        const response = await fetch(`${url}${path}`, {
          method,
          ...init,
          signal: AbortSignal.timeout(ANSWER_CEILING_MS),
        });
        const text = await response.text();
        assertWellFormedAnswer(observe(response, text), method);
        if (response.status !== 200) {
          expect(response.status, text).toBe(503);
          expect(JSON.parse(text), text).toMatchObject({ code: 'store_unavailable' });
        }
        return response.status;
      };
      const invoke = async (idempotent: boolean) => {
        keys += 1;
        const headers: Record<string, string> = {
          'Content-Type': 'application/json',
          ...(idempotent ? { 'Idempotency-Key': `key-${keys}` } : {}),
        };
        const status = await send('POST', '/agent/invoke', {
          headers,
          body: JSON.stringify({
            user_identifier: `u-${keys % 4}`,
            session_id: `s-${keys % 7}`,
            message: `turn ${keys}`,
          }),
        });
        expect(status).toBe(200);
        answeredInvokes += 1;
      };

      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 12 }), async (steps) => {
          try {
            for (const current of steps) {
              if (current.kind === 'pause') link.pause();
              else if (current.kind === 'resume') link.resume();
              else if (current.kind === 'cut') link.cut();
              else if (current.kind === 'restore') link.restore();
              else if (current.kind === 'invoke')
                await Promise.all(Array.from({ length: current.count }, () => invoke(current.idempotent)));
              else if (current.kind === 'settings')
                await send('PUT', '/settings', {
                  headers: { 'Content-Type': 'application/json' },
                  body: JSON.stringify({ max_items: current.maxItems }),
                });
              else if (current.kind === 'stats') await send('GET', '/stats');
              else expect(await send('GET', '/health')).toBe(200);
            }
          } finally {
            link.resume();
            link.restore();
          }
        }),
        { numRuns: 8 },
      );

      await vi.waitFor(() => expect(actor.app.actor.context.stats.pending).toBe(0), { timeout: 20_000, interval: 200 });
      const stats = await fetch(`${url}/stats`);
      expect(await stats.json()).toMatchObject({ invocations: answeredInvokes, errors: 0 });
    }, 240_000);
  });
}
