import type { ActorContext } from '../context/actor-context.js';
import { actorRunsOf } from '../features/runs/actor-runs.js';
import { defineRoute } from '../route-kit/actor-route.js';
import { json } from '../route-kit/openapi-parts.js';

const NO_STORE = { 'Cache-Control': 'no-store' };

/** The body of `GET /health` (also the MCP resource `actor://health`): the last known state of the database and of the actor's own health checks, never waited on. */
export function healthBody(ctx: ActorContext) {
  ctx.database.refresh();
  ctx.domainHealth.refresh();
  const database = ctx.database.status();
  const domain = ctx.domainHealth.status();
  const passing = database.status === 'pass' && Object.values(domain).every((check) => check.status === 'pass');
  return {
    status: passing ? 'ok' : 'degraded',
    version: ctx.definition.metadata.version,
    instance_id: ctx.config.instanceId,
    uptime_s: Math.floor((Date.now() - ctx.lifecycle.startedAt) / 1000),
    /** Runs of this instance not yet ended (they outlive their requests; a drain waits for them). */
    runs_in_progress: actorRunsOf(ctx).inProgress,
    // The monitors' own objects: the database's is its check as shown (`status`, `output`, `kind`).
    checks: { ...domain, database },
  };
}

/**
 * `GET /health`: always 200 while the process lives; `degraded` when the database or one of the
 * actor's own health checks is not passing. Reports their last known state and never waits on them.
 */
export const healthRoute = defineRoute(
  {
    method: 'get',
    path: '/health',
    security: 'open',
    contract: 'required',
    operation: {
      operationId: 'health',
      summary: 'Liveness: always 200 while the process lives',
      responses: { 200: json('`ok` or `degraded`; `runs_in_progress`: the runs of this instance not yet ended') },
    },
  },
  (ctx) =>
    function health(c) {
      return c.json(healthBody(ctx), 200, NO_STORE);
    },
);
