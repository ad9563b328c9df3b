import type { ActorContext } from '../context/actor-context.js';
import type { DomainHealth } from '../context/domain-health-monitor.js';
import type { DatabaseStatus } from '../store/database-monitor.js';
import { defineRoute } from './actor-route.js';
import { json } from './openapi-parts.js';

const NO_STORE = { 'Cache-Control': 'no-store' };

/** The body of `GET /health` (also the MCP resource `actor://health`): the last known state of the database and of the actor's own health checks, never waited on. */
export function healthBody(ctx: ActorContext) {
  ctx.database.refresh();
  ctx.domainHealth.refresh();
  const { passing, checks } = healthChecks(ctx.database.status(), ctx.domainHealth.status());
  return {
    status: passing ? 'ok' : 'degraded',
    version: ctx.definition.metadata.version,
    instance_id: ctx.config.instanceId,
    uptime_s: Math.floor((Date.now() - ctx.lifecycle.startedAt) / 1000),
    checks,
  };
}

/** The last `checks` built, kept while neither state changes: both monitors answer the same object until then, and `/health` is asked every few seconds. */
let lastChecks: { readonly database: DatabaseStatus; readonly domain: Readonly<Record<string, DomainHealth>>; readonly passing: boolean; readonly checks: object } | undefined;

/** The `checks` of `/health` (the actor's own, then the database) and whether every one passes. */
function healthChecks(database: DatabaseStatus, domain: Readonly<Record<string, DomainHealth>>): { readonly passing: boolean; readonly checks: object } {
  if (lastChecks?.database === database && lastChecks.domain === domain) return lastChecks;
  const passing = database.status === 'pass' && Object.values(domain).every((check) => check.status === 'pass');
  const checks = { ...domain, database: { status: database.status, output: database.output, kind: database.kind } };
  lastChecks = { database, domain, passing, checks };
  return lastChecks;
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
    operation: { operationId: 'health', summary: 'Liveness: always 200 while the process lives', responses: { 200: json('`ok` or `degraded`') } },
  },
  (ctx) =>
    function health(c) {
      return c.json(healthBody(ctx), 200, NO_STORE);
    },
);
