import type { ActorFeatures } from '../../core/actor-definition.js';
import { environmentPlaceholder } from '../../environment/environment-placeholder.js';

/** The defaults of the `deployment` block for keys the actor's `package.json` leaves out. */
export const DEPLOYMENT_DEFAULTS = {
  port: 8080,
  health_path: '/health',
  metrics_path: '/metrics',
  resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
  replicas: { min: 1, max: 1 },
} as const;

const KNOWN_KEYS = [
  'image_repo',
  'port',
  'health_path',
  'readiness_path',
  'metrics_path',
  'resources',
  'replicas',
  'env',
];

/**
 * Builds the `deployment` block from the `actorkit.deployment` object of the actor's
 * `package.json` over `DEPLOYMENT_DEFAULTS`. The author's values are kept as written, even wrong
 * or unknown ones, so `validatePlatformConfig` can name them (only a `resources`, `replicas` or
 * `env` that is not an object falls back to the default); `env.ACTOR_PLATFORM` is always `"true"`,
 * and the variables the features need are there as placeholders (`requiredEnvironment`) unless the author set them.
 * @param block `actorkit.deployment` of `package.json` (may be undefined)
 * @param features the template options; `readiness_path` defaults to `/ready` when the probe is declared
 */
export function deploymentBlock(block: unknown, features: ActorFeatures): Record<string, unknown> {
  const given = isRecord(block) ? block : {};
  const resources = isRecord(given.resources) ? given.resources : {};
  const deployment: Record<string, unknown> = {};
  if (given.image_repo !== undefined) deployment.image_repo = given.image_repo;
  deployment.port = given.port ?? DEPLOYMENT_DEFAULTS.port;
  deployment.health_path = given.health_path ?? DEPLOYMENT_DEFAULTS.health_path;
  deployment.readiness_path =
    'readiness_path' in given ? given.readiness_path : features.declareReadinessProbe ? '/ready' : null;
  deployment.metrics_path = given.metrics_path ?? DEPLOYMENT_DEFAULTS.metrics_path;
  const { requests, limits, ...otherResources } = resources;
  deployment.resources = {
    requests: { ...DEPLOYMENT_DEFAULTS.resources.requests, ...asRecord(requests) },
    limits: { ...DEPLOYMENT_DEFAULTS.resources.limits, ...asRecord(limits) },
    ...otherResources,
  };
  deployment.replicas = { ...DEPLOYMENT_DEFAULTS.replicas, ...asRecord(given.replicas) };
  deployment.env = sortKeys({ ...requiredEnvironment(features), ...asRecord(given.env), ACTOR_PLATFORM: 'true' });
  for (const key of Object.keys(given).sort()) {
    if (!KNOWN_KEYS.includes(key)) deployment[key] = given[key];
  }
  return deployment;
}

/**
 * The variables the template options make the actor need, as `deployment.env` placeholders
 * the platform replaces: `MESH_KEY` (a secret) with `fleet_mesh`, `WORKFLOW_BASE_URL` with the
 * n8n integration. Without them the actor refuses to start.
 */
function requiredEnvironment(features: ActorFeatures): Record<string, string> {
  const names = [
    ...(features.fleetMesh ? ['MESH_KEY'] : []),
    ...(features.integrationType === 'n8n' ? ['WORKFLOW_BASE_URL'] : []),
  ];
  return Object.fromEntries(names.map((name) => [name, environmentPlaceholder(name)]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function sortKeys(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
