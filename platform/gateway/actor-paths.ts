import {
  A2A_CARD_PATH,
  A2A_JSON_RPC_PATH,
  CORE_ROUTES,
  healthRoute,
  invokeRoute,
  oauthAuthorizeRoute,
  updateSettingsRoute,
  instanceStatsRoute,
  tenantStatsRoute,
} from '../../src/index.js';

/** The path template of the core route with `operationId`, e.g. `/agent/runs/{id}` of `getRun`; throws at load when the actor has none. */
function corePath(operationId: string): string {
  const route = CORE_ROUTES.find((candidate) => candidate.spec.operation.operationId === operationId);
  if (route === undefined) throw new Error(`The actor's route table has no operation ${operationId}`);
  return route.spec.path;
}

const runPath = corePath('getRun');
const agUiPath = corePath('runAgUi');
const runStreamPath = corePath('streamRun');
/** `/agent/runs/`: what a background invoke's `Location` starts with, the run id after it. */
const runPrefix = runPath.slice(0, runPath.indexOf('{id}'));

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
  /** `/agent/runs/<id>`: a run's status. */
  run: (id: string): string => runPath.replace('{id}', encodeURIComponent(id)),
  /** `/agent/runs/<id>/stream`: a run's stream, from the start or after a part. */
  runStream: (id: string): string => runStreamPath.replace('{id}', encodeURIComponent(id)),
  /** `/agent/ag-ui` of an actor with `expose_ag_ui`: AG-UI's `RunAgentInput` in, AG-UI events out (the edge's `chat/ag-ui`). */
  agUi: agUiPath,
  /** `/a2a` of an actor with `expose_a2a`: A2A's JSON-RPC binding (the edge's `chat/a2a`). */
  a2aJsonRpc: A2A_JSON_RPC_PATH,
  /** `/.well-known/agent-card.json` of an actor with `expose_a2a`: its A2A card, which the edge serves rewritten. */
  a2aCard: A2A_CARD_PATH,
  /** `/mcp` of an actor with `expose_mcp` (rule G lets `mcp` be exposed only when `contract.endpoints` lists it). */
  mcp: '/mcp',
} as const;

/** The first path segments of what the edge never reaches, whatever the configuration says: settings and OAuth. */
export const NEVER_EXPOSED_SEGMENTS: readonly string[] = [
  firstSegment(updateSettingsRoute.spec.path),
  firstSegment(oauthAuthorizeRoute.spec.path),
];

/**
 * The run id a background invoke's `Location` names (`/agent/runs/<id>`), or undefined for any
 * other location.
 * @param location the replica's `Location` header
 */
export function runIdOfLocation(location: string | null): string | undefined {
  if (location === null || !location.startsWith(runPrefix)) return undefined;
  const encoded = location.slice(runPrefix.length);
  if (encoded === '' || encoded.includes('/') || encoded.includes('?')) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}
