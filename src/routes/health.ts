import type { ActorContext } from '../context/actor-context.js';
import { defineRoute } from './actor-route.js';
import { json } from './openapi-parts.js';

const NO_STORE = { 'Cache-Control': 'no-store' };

/** The body of `GET /health` (also the MCP resource `actor://health`): the last known database state, never waited on. */
export function healthBody(ctx: ActorContext) {
  ctx.database.refresh();
  const database = ctx.database.status();
  return {
    status: database.status === 'pass' ? 'ok' : 'degraded',
    version: ctx.definition.metadata.version,
    instance_id: ctx.config.instanceId,
    uptime_s: Math.floor((Date.now() - ctx.lifecycle.startedAt) / 1000),
    checks: { database: { status: database.status, output: database.output, kind: ctx.store.kind } },
  };
}

/**
 * `GET /health`: always 200 while the process lives; `degraded` when the database is not
 * passing. Reports the last known database state and never waits on the database.
 */
export const healthRoute = defineRoute(
  {
    method: 'get',
    path: '/health',
    security: 'open',
    contract: 'required',
    operation: { operationId: 'health', summary: 'Liveness: always 200 while the process lives', responses: { 200: json('`ok` or `degraded`') } },
  },
  (ctx) =>
    function health(c) {
      return c.json(healthBody(ctx), 200, NO_STORE);
    },
);
