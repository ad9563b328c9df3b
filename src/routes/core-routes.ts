import { actorIndexRoute } from './actor-index.js';
import { actorMetadataRoute, platformConfigRoute } from './actor-info.js';
import type { ActorRoute } from '../route-kit/actor-route.js';
import { healthRoute } from './health.js';
import { agUiRoute } from '../features/ag-ui/ag-ui-route.js';
import { invokeRoute } from '../features/invoke/invoke-route.js';
import {
  cancelRunRoute,
  decideApprovalRoute,
  resumeChatStreamRoute,
  runStatusRoute,
  runStreamRoute,
} from '../features/runs/run-routes.js';
import { metricsRoute } from './metrics.js';
import { oauthAuthorizeRoute, oauthCallbackRoute } from './oauth.js';
import { docsRoute, openApiRoute } from './openapi.js';
import { playgroundRoute } from './playground.js';
import { readyRoute } from './ready.js';
import { currentSettingsRoute, settingsSchemaRoute, updateSettingsRoute } from './settings.js';
import { instanceStatsRoute, tenantStatsRoute } from './stats.js';

const label = ({ spec }: ActorRoute) => `${spec.method.toUpperCase()} ${spec.path}`;

/** Orders two strings by their UTF-16 code units (`localeCompare`'s first call loads ICU's collator, ~8 ms of a start). */
const byCodeUnits = (a: string, b: string) => (a === b ? 0 : a < b ? -1 : 1);

/** The routes in mounting order, by path and then method; throws when two declare the same operation. */
function inMountingOrder(routes: readonly ActorRoute[]): readonly ActorRoute[] {
  const seen = new Set<string>();
  for (const route of routes) {
    if (seen.has(label(route))) throw new Error(`Two routes under src/routes or src/features declare ${label(route)}`);
    seen.add(label(route));
  }
  return [...routes].sort((a, b) => byCodeUnits(a.spec.path, b.spec.path) || byCodeUnits(a.spec.method, b.spec.method));
}

/**
 * The route table of the always-present surface, in mounting order (by path, then method). It
 * is this hand-written list of every `defineRoute(spec, handler)` a file under `src/routes/` or
 * a feature folder `src/features/<name>/` exports: adding a route is adding its file and its line here (`core-routes.test.ts` fails,
 * naming the route, when a file exports one the list lacks). Each spec declares its method, path, schemas, answers, security, body limit and contract role; the
 * app mounts the table, lets its `open` paths past the API key, caps the bodies it marks, and
 * `/openapi.json` documents it. No two routes share a method and path, so the order only sets
 * the order of the document.
 */
export const CORE_ROUTES: readonly ActorRoute[] = inMountingOrder([
  actorIndexRoute,
  actorMetadataRoute,
  platformConfigRoute,
  healthRoute,
  invokeRoute,
  agUiRoute,
  resumeChatStreamRoute,
  runStatusRoute,
  runStreamRoute,
  cancelRunRoute,
  decideApprovalRoute,
  metricsRoute,
  oauthAuthorizeRoute,
  oauthCallbackRoute,
  openApiRoute,
  docsRoute,
  playgroundRoute,
  readyRoute,
  updateSettingsRoute,
  currentSettingsRoute,
  settingsSchemaRoute,
  instanceStatsRoute,
  tenantStatsRoute,
]);

/**
 * The exact paths of the routes declared `open`: those the API key lets through.
 * @param routes the mounted routes
 */
export function openPaths(routes: readonly ActorRoute[]): string[] {
  return routes.filter((route) => route.spec.security === 'open').map((route) => route.spec.path);
}
