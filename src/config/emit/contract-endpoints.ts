import type { ActorDefinition } from '../../core/actor-definition.js';
import { RECOMMENDED_ENDPOINTS, REQUIRED_ENDPOINTS, type ContractEndpoint as TopicEndpoint } from '../topic-contract.js';
import type { ContractEndpoint, EndpointPresence } from '../platform-config.js';

const ALWAYS_ENDPOINTS: readonly ContractEndpoint[] = [
  { method: 'GET', path: '/settings', presence: 'always' },
  { method: 'GET', path: '/settings/schema', presence: 'always' },
  { method: 'GET', path: '/oauth/authorize', presence: 'always' },
  { method: 'GET', path: '/oauth/callback', presence: 'always' },
  { method: 'GET', path: '/openapi.json', presence: 'always' },
  { method: 'GET', path: '/docs', presence: 'always' },
  { method: 'GET', path: '/', presence: 'always' },
];

function declared(endpoints: readonly TopicEndpoint[], presence: EndpointPresence): ContractEndpoint[] {
  return endpoints.map((endpoint) => ({ method: endpoint.method.toUpperCase() as ContractEndpoint['method'], path: endpoint.path, presence }));
}

/**
 * Lists the routes an actor with this definition mounts, in a fixed order: required and
 * recommended by topic contract v1.0 (the lists `makeContractTests` checks), always present,
 * then the conditional ones its template options turn on: the panel routes, the peer check and
 * each declared peer read under `/api/<domain>` (`:param` written `{param}`), the workflow proxy,
 * the MCP server (`ANY /mcp`: Streamable HTTP posts messages and deletes sessions on one path).
 * @param definition the actor's template options, domain and peer reads
 */
export function contractEndpoints(definition: Pick<ActorDefinition, 'features' | 'metadata' | 'peerReads'>): ContractEndpoint[] {
  const { features } = definition;
  const endpoints = [...declared(REQUIRED_ENDPOINTS, 'required'), ...declared(RECOMMENDED_ENDPOINTS, 'recommended'), ...ALWAYS_ENDPOINTS];
  if (features.includePanel) {
    endpoints.push(
      { method: 'GET', path: '/panel/{slug}', presence: 'conditional' },
      { method: 'GET', path: '/panel/{slug}/data', presence: 'conditional' },
      { method: 'POST', path: '/panel/{slug}/action', presence: 'conditional' },
    );
  }
  if (features.fleetMesh) {
    const prefix = `/api/${definition.metadata.domain}`;
    for (const path of ['/_peer_check', ...(definition.peerReads ?? []).map((read) => read.path)]) {
      endpoints.push({ method: 'GET', path: `${prefix}${path.replace(/:([A-Za-z_]\w*)/g, '{$1}')}`, presence: 'conditional' });
    }
  }
  if (features.integrationType === 'n8n') endpoints.push({ method: 'ANY', path: '/workflow/*', presence: 'conditional' });
  if (features.exposeMcp === true) endpoints.push({ method: 'ANY', path: '/mcp', presence: 'conditional' });
  return endpoints;
}
