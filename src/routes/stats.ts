import { Hono } from 'hono';
import { parseTenantId } from '../core/tenant-id.js';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';
import { ActorError } from '../core/actor-error.js';
import type { StatsSnapshot } from '../store/store.js';

/** The JSON body of `/stats` and `/stats/{tenant_id}` (DESIGN §3). */
export function statsBody(snapshot: StatsSnapshot) {
  return {
    since: snapshot.since,
    invocations: snapshot.invocations,
    errors: snapshot.errors,
    sessions: snapshot.sessions,
    users: snapshot.users,
    tenants: snapshot.tenants,
    input_tokens: snapshot.inputTokens,
    output_tokens: snapshot.outputTokens,
    tool_calls: snapshot.toolCalls,
    latency_ms: {
      total: snapshot.latencyMsTotal,
      avg: snapshot.invocations === 0 ? 0 : Math.round((snapshot.latencyMsTotal / snapshot.invocations) * 100) / 100,
      max: snapshot.latencyMsMax,
    },
    last_invoked_at: snapshot.lastInvokedAt,
  };
}

/** Reads the counters, turning an unreachable database into a 503 `store_unavailable` problem. */
export async function readStats(ctx: ActorContext, tenantId?: string): Promise<StatsSnapshot> {
  try {
    return await ctx.stats.readStats(tenantId);
  } catch (error) {
    throw new ActorError('store_unavailable', { detail: 'Statistics are unavailable: the database is unreachable; try again shortly', headers: { 'Retry-After': '5' }, cause: error });
  }
}

/** `GET /stats` (the whole instance, from the shared database) and `GET /stats/{tenant_id}`. */
export function statsRoutes(ctx: ActorContext): Hono<ActorEnv> {
  return new Hono<ActorEnv>()
    .get('/stats', async function instanceStats(c) {
      const snapshot = await readStats(ctx);
      return c.json({ scope: 'instance', instance_id: ctx.config.instanceId, ...statsBody(snapshot) });
    })
    .get('/stats/:tenant_id', async function tenantStats(c) {
      const tenantId = c.req.param('tenant_id');
      parseTenantId(tenantId, '/tenant_id', 'The tenant id in the path is malformed');
      const snapshot = await readStats(ctx, tenantId);
      return c.json({ scope: 'tenant', tenant_id: tenantId, instance_id: ctx.config.instanceId, ...statsBody(snapshot) });
    });
}
