import type { ActorFeatures } from '../../core/actor-definition.js';
import { environmentPlaceholder } from '../../environment/environment-placeholder.js';

/**
 * The variables the template options make the actor need, as `deployment.env` placeholders
 * the platform replaces: `MESH_KEY` (a secret) with `fleet_mesh`, `WORKFLOW_BASE_URL` with the
 * n8n integration. Without them the actor refuses to start.
 * @param features the actor's template options
 */
export function requiredEnvironment(features: ActorFeatures): Record<string, string> {
  const names = [
    ...(features.fleetMesh ? ['MESH_KEY'] : []),
    ...(features.integrationType === 'n8n' ? ['WORKFLOW_BASE_URL'] : []),
  ];
  return Object.fromEntries(names.map((name) => [name, environmentPlaceholder(name)]));
}
