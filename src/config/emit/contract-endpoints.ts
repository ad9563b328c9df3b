import type { ActorFeatures } from '../../core/actor-definition.js';
import { RECOMMENDED_ENDPOINTS, REQUIRED_ENDPOINTS, type ContractEndpoint as TopicEndpoint } from '../topic-contract.js';
import type { ContractEndpoint, EndpointPresence } from '../platform-config.js';

const ALWAYS_ENDPOINTS: readonly ContractEndpoint[] = [
  { method: 'GET', path: '/settings/schema', presence: 'always' },
  { method: 'GET', path: '/oauth/authorize', presence: 'always' },
  { method: 'GET', path: '/oauth/callback', presence: 'always' },
  { method: 'GET', path: '/openapi.json', presence: 'always' },
  { method: 'GET', path: '/docs', presence: 'always' },
];

function declared(endpoints: readonly TopicEndpoint[], presence: EndpointPresence): ContractEndpoint[] {
  return endpoints.map((endpoint) => ({ method: endpoint.method.toUpperCase() as ContractEndpoint['method'], path: endpoint.path, presence }));
}

/**
 * Lists the routes an actor with these template options mounts, in a fixed order: required and
 * recommended by topic contract v1.0 (the lists `makeContractTests` checks), always present,
 * then the conditional ones (panel, peer reads, workflow proxy).
 * @param features the actor's template options
 * @param domain the actor's domain module, which prefixes its peer-read routes
 */
export function contractEndpoints(features: ActorFeatures, domain: string): ContractEndpoint[] {
  const endpoints = [...declared(REQUIRED_ENDPOINTS, 'required'), ...declared(RECOMMENDED_ENDPOINTS, 'recommended'), ...ALWAYS_ENDPOINTS];
  if (features.includePanel) {
    endpoints.push(
      { method: 'GET', path: '/panel/{slug}', presence: 'conditional' },
      { method: 'GET', path: '/panel/{slug}/data', presence: 'conditional' },
      { method: 'POST', path: '/panel/{slug}/action', presence: 'conditional' },
    );
  }
  if (features.fleetMesh) endpoints.push({ method: 'GET', path: `/api/${domain}/_peer_check`, presence: 'conditional' });
  if (features.integrationType === 'n8n') endpoints.push({ method: 'ANY', path: '/workflow/*', presence: 'conditional' });
  return endpoints;
}
