import { parseTenantId, TenantId } from '../core/tenant-id.js';
import type { ActorContext } from '../context/actor-context.js';
import { ActorError } from '../core/actor-error.js';
import type { StatsSnapshot } from '../store/store.js';
import { defineRoute } from '../route-kit/actor-route.js';
import { json, problem, schemaOf } from '../route-kit/openapi-parts.js';

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
    throw new ActorError('store_unavailable', {
      detail: 'Statistics are unavailable: the database is unreachable; try again shortly',
      headers: { 'Retry-After': '5' },
      cause: error,
    });
  }
}

const STATS_SCHEMA = {
  type: 'object',
  required: [
    'scope',
    'instance_id',
    'since',
    'invocations',
    'errors',
    'sessions',
    'users',
    'tenants',
    'input_tokens',
    'output_tokens',
    'tool_calls',
    'latency_ms',
    'last_invoked_at',
  ],
  properties: {
    scope: { enum: ['instance', 'tenant'] },
    tenant_id: { type: 'string' },
    instance_id: { type: 'string' },
    since: { type: 'string', format: 'date-time' },
    invocations: { type: 'integer' },
    errors: { type: 'integer' },
    sessions: { type: 'integer' },
    users: { type: 'integer' },
    tenants: { type: 'integer' },
    input_tokens: { type: 'integer' },
    output_tokens: { type: 'integer' },
    tool_calls: { type: 'integer' },
    latency_ms: {
      type: 'object',
      required: ['total', 'avg', 'max'],
      properties: { total: { type: 'number' }, avg: { type: 'number' }, max: { type: 'number' } },
    },
    last_invoked_at: { type: ['string', 'null'], format: 'date-time' },
  },
};

const storeUnavailable = problem('Database unreachable', ['store_unavailable']);

/** `GET /stats`: the counters of the whole instance, from the shared database. */
export const instanceStatsRoute = defineRoute(
  {
    method: 'get',
    path: '/stats',
    security: 'apiKey',
    contract: 'recommended',
    operation: {
      operationId: 'stats',
      summary: 'Statistics of the whole actor',
      responses: { 200: json('Counters', STATS_SCHEMA), 503: storeUnavailable },
    },
  },
  (ctx) =>
    async function instanceStats(c) {
      const snapshot = await readStats(ctx);
      return c.json({ scope: 'instance', instance_id: ctx.config.instanceId, ...statsBody(snapshot) });
    },
);

/** `GET /stats/{tenant_id}`: the counters of one tenant; a malformed tenant id is a 422. */
export const tenantStatsRoute = defineRoute(
  {
    method: 'get',
    path: '/stats/{tenant_id}',
    security: 'apiKey',
    contract: 'recommended',
    operation: {
      operationId: 'tenantStats',
      summary: 'Statistics of one tenant',
      parameters: [{ name: 'tenant_id', in: 'path', required: true, schema: schemaOf(TenantId) }],
      responses: {
        200: json('Counters', STATS_SCHEMA),
        422: problem('Malformed tenant id', ['validation_failed']),
        503: storeUnavailable,
      },
    },
  },
  (ctx) =>
    async function tenantStats(c) {
      const tenantId = c.req.param('tenant_id') ?? '';
      parseTenantId(tenantId, '/tenant_id', 'The tenant id in the path is malformed');
      const snapshot = await readStats(ctx, tenantId);
      return c.json({
        scope: 'tenant',
        tenant_id: tenantId,
        instance_id: ctx.config.instanceId,
        ...statsBody(snapshot),
      });
    },
);
