import { defineRoute } from '../route-kit/actor-route.js';
import { json } from '../route-kit/openapi-parts.js';

const NO_STORE = { 'Cache-Control': 'no-store' };

/**
 * `GET /ready`: 200 when the actor takes work; 503 while starting, draining, or when one
 * of the actor's own readiness checks fails. The database is not a readiness check: the
 * actor still answers while it is down.
 */
export const readyRoute = defineRoute(
  {
    method: 'get',
    path: '/ready',
    security: 'open',
    contract: 'required',
    operation: {
      operationId: 'ready',
      summary: 'Readiness',
      responses: { 200: json('Ready'), 503: json('Not ready: starting, draining or a failed check') },
    },
  },
  (ctx) =>
    async function ready(c) {
      const phase = ctx.lifecycle.phase;
      if (phase !== 'ready') {
        return c.json(
          { status: 'not_ready', reason: phase === 'starting' ? 'starting' : 'draining', checks: {} },
          503,
          NO_STORE,
        );
      }
      let checks: Record<string, boolean>;
      try {
        checks = await ctx.readinessChecks();
      } catch (error) {
        ctx.logger.warn('readiness_check_failed', { error });
        checks = { readiness_checks: false };
      }
      const ok = Object.values(checks).every(Boolean);
      return ok
        ? c.json({ status: 'ready', checks }, 200, NO_STORE)
        : c.json({ status: 'not_ready', reason: 'check_failed', checks }, 503, NO_STORE);
    },
);
