import type { ActorRoute } from './actor-route.js';
import { actorIndexRoute } from './actor-index.js';
import { actorMetadataRoute, platformConfigRoute } from './actor-info.js';
import { healthRoute } from './health.js';
import { invokeRoute } from './invoke.js';
import { metricsRoute } from './metrics.js';
import { oauthAuthorizeRoute, oauthCallbackRoute } from './oauth.js';
import { docsRoute, openApiRoute } from './openapi.js';
import { playgroundRoute } from './playground.js';
import { readyRoute } from './ready.js';
import { currentSettingsRoute, settingsSchemaRoute, updateSettingsRoute } from './settings.js';
import { instanceStatsRoute, tenantStatsRoute } from './stats.js';

/**
 * The route table of the always-present surface, in mounting order. Each entry declares its
 * method, path, schemas, answers, security, body limit and contract role beside its handler;
 * the app mounts it, lets its `open` paths past the API key, caps the bodies it marks, and
 * `/openapi.json` documents it — from this one list.
 */
export const CORE_ROUTES: readonly ActorRoute[] = [
  invokeRoute,
  healthRoute,
  readyRoute,
  metricsRoute,
  instanceStatsRoute,
  tenantStatsRoute,
  updateSettingsRoute,
  currentSettingsRoute,
  settingsSchemaRoute,
  actorMetadataRoute,
  platformConfigRoute,
  actorIndexRoute,
  oauthAuthorizeRoute,
  oauthCallbackRoute,
  playgroundRoute,
  openApiRoute,
  docsRoute,
];

/**
 * The exact paths of the routes declared `open`: those the API key lets through.
 * @param routes the mounted routes
 */
export function openPaths(routes: readonly ActorRoute[]): string[] {
  return routes.filter((route) => route.spec.security === 'open').map((route) => route.spec.path);
}
