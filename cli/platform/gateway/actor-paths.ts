import { healthRoute } from '../../../src/routes/health.js';
import { invokeRoute } from '../../../src/features/invoke/invoke-route.js';
import { oauthAuthorizeRoute } from '../../../src/routes/oauth.js';
import { updateSettingsRoute } from '../../../src/routes/settings.js';
import { instanceStatsRoute, tenantStatsRoute } from '../../../src/routes/stats.js';

/** The first segment of a route path, e.g. `settings` of `/settings`. */
const firstSegment = (path: string): string => path.split('/').filter(Boolean)[0] ?? '';

/** The actor's own paths the gateway sends requests to, read from the actor's route table. */
export const ACTOR_PATHS = {
  invoke: invokeRoute.spec.path,
  health: healthRoute.spec.path,
  stats: instanceStatsRoute.spec.path,
  /** `/stats/<tenant>`. */
  tenantStats: (tenant: string): string =>
    tenantStatsRoute.spec.path.replace('{tenant_id}', encodeURIComponent(tenant)),
  /** `/mcp` of an actor with `expose_mcp` (rule G lets `mcp` be exposed only when `contract.endpoints` lists it). */
  mcp: '/mcp',
} as const;

/** The first path segments of what the edge never reaches, whatever the configuration says: settings and OAuth. */
export const NEVER_EXPOSED_SEGMENTS: readonly string[] = [
  firstSegment(updateSettingsRoute.spec.path),
  firstSegment(oauthAuthorizeRoute.spec.path),
];
