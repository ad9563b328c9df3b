import { Hono } from 'hono';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';

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
export function healthRoutes(ctx: ActorContext): Hono<ActorEnv> {
  return new Hono<ActorEnv>().get('/health', function health(c) {
    return c.json(healthBody(ctx), 200, NO_STORE);
  });
}
