import type { ActorDefinition } from '../../core/actor-definition.js';
import type { ContractEndpoint } from '../platform-config.js';
import { CORE_CONTRACT_ENDPOINTS } from './core-contract-endpoints.js';

/**
 * Lists the routes an actor with this definition mounts, in a fixed order: the core routes that
 * declare a contract role (required, recommended, always; `CORE_CONTRACT_ENDPOINTS`, checked
 * against the route table by its test), then the conditional ones its template options turn on: the panel routes, the peer check and
 * each declared peer read under `/api/<domain>` (`:param` written `{param}`), the workflow proxy,
 * the MCP server (`ANY /mcp`: Streamable HTTP posts messages and deletes sessions on one path),
 * the AG-UI agent (`POST /agent/ag-ui`), the A2A card and its JSON-RPC and HTTP+JSON bindings
 * (`{task}` is `<id>`, `<id>:cancel` or `<id>:subscribe`).
 * @param definition the actor's template options, domain and peer reads
 */
export function contractEndpoints(
  definition: Pick<ActorDefinition, 'features' | 'metadata' | 'peerReads'>,
): ContractEndpoint[] {
  const { features } = definition;
  const endpoints = [...CORE_CONTRACT_ENDPOINTS];
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
      endpoints.push({
        method: 'GET',
        path: `${prefix}${path.replace(/:([A-Za-z_]\w*)/g, '{$1}')}`,
        presence: 'conditional',
      });
    }
  }
  if (features.integrationType === 'n8n')
    endpoints.push({ method: 'ANY', path: '/workflow/*', presence: 'conditional' });
  if (features.exposeMcp === true) endpoints.push({ method: 'ANY', path: '/mcp', presence: 'conditional' });
  if (features.exposeAgUi === true) endpoints.push({ method: 'POST', path: '/agent/ag-ui', presence: 'conditional' });
  if (features.exposeA2a === true)
    endpoints.push(
      { method: 'GET', path: '/.well-known/agent-card.json', presence: 'conditional' },
      { method: 'POST', path: '/a2a', presence: 'conditional' },
      { method: 'POST', path: '/a2a/message:send', presence: 'conditional' },
      { method: 'POST', path: '/a2a/message:stream', presence: 'conditional' },
      { method: 'GET', path: '/a2a/tasks', presence: 'conditional' },
      { method: 'GET', path: '/a2a/tasks/{task}', presence: 'conditional' },
      { method: 'POST', path: '/a2a/tasks/{task}', presence: 'conditional' },
    );
  return endpoints;
}
